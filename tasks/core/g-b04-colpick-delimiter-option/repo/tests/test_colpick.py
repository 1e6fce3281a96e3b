import io
import os
import tempfile
import unittest

from colpick.cli import main
from colpick.pick import pick


class TestPick(unittest.TestCase):
    def test_pick_reorders(self):
        rows = [["a", "b", "c"], ["1", "2", "3"]]
        self.assertEqual(list(pick(rows, ["c", "a"])), [["c", "a"], ["3", "1"]])


class TestCli(unittest.TestCase):
    def test_comma_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "people.csv")
            with open(path, "w") as f:
                f.write("name,age,city\nAna,31,Porto\nBo,25,Oslo\n")
            out = io.StringIO()
            self.assertEqual(main([path, "--columns", "city,name"], out), 0)
        self.assertEqual(out.getvalue(), "city,name\nPorto,Ana\nOslo,Bo\n")


if __name__ == "__main__":
    unittest.main()
