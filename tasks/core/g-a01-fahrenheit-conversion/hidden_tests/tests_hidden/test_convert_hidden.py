import unittest

from thermo.convert import (
    celsius_to_fahrenheit,
    celsius_to_kelvin,
    fahrenheit_to_celsius,
    kelvin_to_celsius,
)


class TestFahrenheit(unittest.TestCase):
    def test_boiling_point(self):
        self.assertAlmostEqual(fahrenheit_to_celsius(212), 100.0)

    def test_freezing_and_body(self):
        self.assertAlmostEqual(fahrenheit_to_celsius(32), 0.0)
        self.assertAlmostEqual(fahrenheit_to_celsius(98.6), 37.0)
        self.assertAlmostEqual(fahrenheit_to_celsius(-40), -40.0)

    def test_round_trip(self):
        for c in (-12.5, 0.0, 21.0, 37.5):
            self.assertAlmostEqual(fahrenheit_to_celsius(celsius_to_fahrenheit(c)), c)


class TestCelsius(unittest.TestCase):
    def test_celsius_to_fahrenheit(self):
        self.assertEqual(celsius_to_fahrenheit(-40), -40.0)
        self.assertAlmostEqual(celsius_to_fahrenheit(37), 98.6)


class TestKelvin(unittest.TestCase):
    def test_kelvin(self):
        self.assertAlmostEqual(kelvin_to_celsius(celsius_to_kelvin(25.0)), 25.0)
