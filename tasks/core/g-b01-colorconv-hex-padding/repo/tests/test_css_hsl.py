import unittest

from colorconv.hsl import css_hsl


class TestCssHsl(unittest.TestCase):
    def test_css_hsl(self):
        self.assertEqual(css_hsl((255, 128, 0)), "hsl(30, 100%, 50%)")
        self.assertEqual(css_hsl((255, 255, 255)), "hsl(0, 0%, 100%)")
