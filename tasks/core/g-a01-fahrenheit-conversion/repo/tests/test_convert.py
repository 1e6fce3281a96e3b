import unittest

from thermo.convert import celsius_to_fahrenheit, celsius_to_kelvin, kelvin_to_celsius


class TestConvert(unittest.TestCase):
    def test_celsius_to_fahrenheit(self):
        self.assertEqual(celsius_to_fahrenheit(100), 212.0)
        self.assertEqual(celsius_to_fahrenheit(0), 32.0)

    def test_kelvin(self):
        self.assertAlmostEqual(celsius_to_kelvin(0), 273.15)
        self.assertAlmostEqual(kelvin_to_celsius(273.15), 0.0)
        with self.assertRaises(ValueError):
            celsius_to_kelvin(-300)
