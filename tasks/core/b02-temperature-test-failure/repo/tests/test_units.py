import unittest

from unitconv import length, speed, temperature


class TestTemperature(unittest.TestCase):
    def test_boiling_point(self):
        self.assertAlmostEqual(temperature.celsius_to_fahrenheit(100), 212.0)

    def test_fahrenheit_round_trip(self):
        for c in (-40, 0, 21.5, 100):
            f = temperature.celsius_to_fahrenheit(c)
            self.assertAlmostEqual(temperature.fahrenheit_to_celsius(f), c)

    def test_kelvin(self):
        self.assertAlmostEqual(temperature.celsius_to_kelvin(0), 273.15)

    def test_below_absolute_zero(self):
        with self.assertRaises(ValueError):
            temperature.celsius_to_kelvin(-300)


class TestLengthAndSpeed(unittest.TestCase):
    def test_miles(self):
        self.assertAlmostEqual(length.miles_to_km(1), 1.609344)

    def test_speed(self):
        self.assertAlmostEqual(speed.kmh_to_ms(36), 10.0)


if __name__ == "__main__":
    unittest.main()
