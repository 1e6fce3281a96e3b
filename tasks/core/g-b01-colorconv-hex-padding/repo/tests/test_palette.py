import unittest

from colorconv.palette import complement, grayscale, ramp, shades, tints


class TestPalette(unittest.TestCase):
    def test_ramp(self):
        self.assertEqual(ramp((0, 0, 0), (100, 200, 40), 3), [(0, 0, 0), (50, 100, 20),
                                                               (100, 200, 40)])
        with self.assertRaises(ValueError):
            ramp((0, 0, 0), (1, 1, 1), 1)

    def test_tints_and_shades(self):
        self.assertEqual(tints((0, 0, 0), 1), [(128, 128, 128)])
        self.assertEqual(shades((200, 100, 0), 1), [(100, 50, 0)])
        self.assertEqual(len(tints((10, 20, 30))), 4)

    def test_complement_and_grey(self):
        self.assertEqual(complement((255, 0, 0)), (0, 255, 255))
        self.assertEqual(grayscale((255, 255, 255)), (255, 255, 255))
        self.assertEqual(grayscale((255, 0, 0)), (76, 76, 76))
