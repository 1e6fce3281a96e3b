import unittest

import textcols


class TestPackage(unittest.TestCase):
    def test_exports(self):
        for name in textcols.__all__:
            self.assertTrue(callable(getattr(textcols, name)), name)

    def test_report_header(self):
        lines = textcols.box(textcols.columns([["job", "secs"], ["lint", 4]]))
        self.assertEqual(lines[1], "| job   secs |")
        self.assertEqual(len({len(line) for line in lines}), 1)
