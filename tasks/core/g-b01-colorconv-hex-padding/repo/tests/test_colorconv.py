import unittest

from colorconv import hex_to_rgb, rgb_to_hex
from colorconv.hsl import hsl_to_rgb, rgb_to_hsl
from colorconv.mix import lighten, mix


class TestHex(unittest.TestCase):
    def test_hex_to_rgb(self):
        self.assertEqual(hex_to_rgb("#ff8000"), (255, 128, 0))
        self.assertEqual(hex_to_rgb("#f80"), (255, 136, 0))

    def test_rgb_to_hex(self):
        self.assertEqual(rgb_to_hex((255, 170, 187)), "#ffaabb")


class TestOther(unittest.TestCase):
    def test_hsl_round_trip(self):
        self.assertEqual(hsl_to_rgb(rgb_to_hsl((40, 120, 200))), (40, 120, 200))

    def test_mix(self):
        self.assertEqual(mix((0, 0, 0), (255, 255, 255)), (128, 128, 128))
        self.assertEqual(lighten((0, 0, 0), 1), (255, 255, 255))


if __name__ == "__main__":
    unittest.main()
