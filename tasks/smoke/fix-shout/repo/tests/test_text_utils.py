import unittest

from text_utils import shout, whisper


class TestTextUtils(unittest.TestCase):
    def test_shout(self):
        self.assertEqual(shout("hello"), "HELLO!")

    def test_whisper(self):
        self.assertEqual(whisper("Hello"), "hello...")


if __name__ == "__main__":
    unittest.main()
