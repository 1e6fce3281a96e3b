import unittest

from mdtoc import toc
from mdtoc.anchors import slug
from mdtoc.parser import headings

DOC = """# Title

Intro.

## Install ##

### From source

#### Deep detail

## Usage
"""


class TestToc(unittest.TestCase):
    def test_headings(self):
        self.assertEqual([h.title for h in headings(DOC)],
                         ["Title", "Install", "From source", "Deep detail", "Usage"])

    def test_slug(self):
        self.assertEqual(slug("Hello, World!"), "hello-world")

    def test_toc(self):
        self.assertEqual(toc(DOC).splitlines(), [
            "- [Title](#title)",
            "  - [Install](#install)",
            "    - [From source](#from-source)",
            "  - [Usage](#usage)",
        ])


if __name__ == "__main__":
    unittest.main()
