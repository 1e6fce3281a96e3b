import unittest

from sizefmt.report import by_extension, extension, largest, render, total

ENTRIES = [("a/notes.TXT", 100), ("b/photo.jpg", 4096), ("c/.bashrc", 50), ("d/clip.jpg", 2048)]


class TestReport(unittest.TestCase):
    def test_extension(self):
        self.assertEqual(extension("a/notes.TXT"), "txt")
        self.assertEqual(extension("c/.bashrc"), "")
        self.assertEqual(extension("Makefile"), "")

    def test_total_and_largest(self):
        self.assertEqual(total(ENTRIES), 6294)
        self.assertEqual([p for p, _ in largest(ENTRIES, 2)], ["b/photo.jpg", "d/clip.jpg"])

    def test_by_extension(self):
        self.assertEqual(by_extension(ENTRIES), {"jpg": 6144, "txt": 100, "": 50})

    def test_render(self):
        text = render(ENTRIES)
        self.assertIn("files: 4", text)
        self.assertIn("*.jpg: 6.0 KiB", text)
