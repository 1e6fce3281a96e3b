import unittest

from text_utils import shout, whisper


class TestTextUtilsHidden(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("hello"), "HELLO!")

    def test_shout_more_cases(self):
        self.assertEqual(shout("MiXeD case"), "MIXED CASE!")
        self.assertEqual(shout("already LOUD"), "ALREADY LOUD!")
        self.assertEqual(shout(""), "!")

    def test_whisper_unchanged(self):
        self.assertEqual(whisper("Hello"), "hello...")


if __name__ == "__main__":
    unittest.main()
