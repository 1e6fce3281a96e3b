import unittest

from colorconv.contrast import best_text_color, contrast_ratio, passes, relative_luminance
from colorconv.names import nearest_name, parse_color


class TestNames(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(parse_color(" Navy "), (0, 0, 128))
        self.assertEqual(parse_color("#ff8000"), (255, 128, 0))
        with self.assertRaisesRegex(ValueError, "unknown colour"):
            parse_color("blurple")

    def test_nearest(self):
        self.assertEqual(nearest_name((250, 5, 5)), "red")
        self.assertEqual(nearest_name((100, 50, 150)), "rebeccapurple")


class TestContrast(unittest.TestCase):
    def test_luminance(self):
        self.assertEqual(relative_luminance((0, 0, 0)), 0.0)
        self.assertAlmostEqual(relative_luminance((255, 255, 255)), 1.0)

    def test_ratio(self):
        self.assertEqual(contrast_ratio((0, 0, 0), (255, 255, 255)), 21.0)
        self.assertEqual(contrast_ratio((119, 119, 119), (255, 255, 255)), 4.48)

    def test_passes(self):
        grey, white = (119, 119, 119), (255, 255, 255)
        self.assertFalse(passes(grey, white))
        self.assertTrue(passes(grey, white, large_text=True))
        with self.assertRaises(ValueError):
            passes(grey, white, level="A")

    def test_best_text_color(self):
        self.assertEqual(best_text_color((255, 255, 0)), (0, 0, 0))
        self.assertEqual(best_text_color((0, 0, 128)), (255, 255, 255))
