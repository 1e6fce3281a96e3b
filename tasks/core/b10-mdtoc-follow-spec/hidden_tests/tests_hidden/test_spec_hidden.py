import unittest

from mdtoc import toc
from mdtoc.anchors import anchors, slug
from mdtoc.parser import headings

FENCED = """# Guide

```bash
# this is a shell comment, not a heading
echo hi
```

## Setup

~~~~
## not a heading either
```
# still inside the tilde fence
~~~~

## Run
"""

DUPES = """# API

## Usage

### Example

## Errors

### Example

## Usage
"""


class TestFences(unittest.TestCase):
    def test_headings_skip_fenced_code(self):
        self.assertEqual([h.title for h in headings(FENCED)], ["Guide", "Setup", "Run"])

    def test_line_numbers_kept(self):
        self.assertEqual([h.line for h in headings(FENCED)], [1, 8, 16])


class TestDuplicateAnchors(unittest.TestCase):
    def test_suffixes(self):
        self.assertEqual(anchors(["Usage", "Usage", "Usage"]), ["usage", "usage-1", "usage-2"])

    def test_toc_with_duplicates(self):
        self.assertEqual(toc(DUPES).splitlines(), [
            "- [API](#api)",
            "  - [Usage](#usage)",
            "    - [Example](#example)",
            "  - [Errors](#errors)",
            "    - [Example](#example-1)",
            "  - [Usage](#usage-1)",
        ])


class TestUnchanged(unittest.TestCase):
    def test_slug_rules(self):
        self.assertEqual(slug("Hello, World!"), "hello-world")
        self.assertEqual(slug("A -- B"), "a----b")
        self.assertEqual(slug("snake_case API"), "snake_case-api")

    def test_unique_titles(self):
        self.assertEqual(anchors(["One", "Two"]), ["one", "two"])

    def test_max_level(self):
        self.assertEqual(toc("# A\n## B\n### C\n", max_level=2).splitlines(),
                         ["- [A](#a)", "  - [B](#b)"])


if __name__ == "__main__":
    unittest.main()
