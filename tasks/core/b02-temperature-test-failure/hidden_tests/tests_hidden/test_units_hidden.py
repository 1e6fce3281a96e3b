import unittest

from unitconv import length, speed, temperature


class TestFahrenheit(unittest.TestCase):
    def test_fahrenheit_to_celsius(self):
        self.assertAlmostEqual(temperature.fahrenheit_to_celsius(212), 100.0)
        self.assertAlmostEqual(temperature.fahrenheit_to_celsius(32), 0.0)
        self.assertAlmostEqual(temperature.fahrenheit_to_celsius(-40), -40.0)

    def test_fahrenheit_to_kelvin(self):
        self.assertAlmostEqual(temperature.fahrenheit_to_kelvin(212), 373.15)

    def test_fahrenheit_below_absolute_zero(self):
        with self.assertRaises(ValueError):
            temperature.fahrenheit_to_celsius(-500)


class TestUnchanged(unittest.TestCase):
    def test_celsius(self):
        self.assertAlmostEqual(temperature.celsius_to_fahrenheit(-40), -40.0)
        self.assertAlmostEqual(temperature.kelvin_to_celsius(0), -273.15)

    def test_length_speed(self):
        self.assertAlmostEqual(length.km_to_miles(1.609344), 1.0)
        self.assertAlmostEqual(speed.knots_to_kmh(1), 1.852)


if __name__ == "__main__":
    unittest.main()
