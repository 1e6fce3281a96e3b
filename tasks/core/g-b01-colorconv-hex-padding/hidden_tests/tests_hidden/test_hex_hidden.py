import unittest

from colorconv import hex_to_rgb, rgb_to_hex


class TestPadding(unittest.TestCase):
    def test_zero_channel(self):
        self.assertEqual(rgb_to_hex((255, 128, 0)), "#ff8000")

    def test_small_channels(self):
        self.assertEqual(rgb_to_hex((1, 2, 3)), "#010203")
        self.assertEqual(rgb_to_hex((0, 0, 0)), "#000000")

    def test_round_trip(self):
        for code in ("#0a0b0c", "#00ff00", "#123456"):
            self.assertEqual(rgb_to_hex(hex_to_rgb(code)), code)


class TestUnchanged(unittest.TestCase):
    def test_two_digit_channels(self):
        self.assertEqual(rgb_to_hex((255, 170, 187)), "#ffaabb")

    def test_rejects_bad_channels(self):
        for bad in ((256, 0, 0), (-1, 0, 0), (1.5, 0, 0)):
            with self.assertRaises(ValueError):
                rgb_to_hex(bad)


if __name__ == "__main__":
    unittest.main()
