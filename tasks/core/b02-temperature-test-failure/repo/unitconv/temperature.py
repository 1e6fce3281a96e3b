"""Temperature scales: Celsius, Fahrenheit and Kelvin."""

ABSOLUTE_ZERO_C = -273.15


def _check_celsius(c):
    if c < ABSOLUTE_ZERO_C:
        raise ValueError(f"{c} °C is below absolute zero")


def celsius_to_fahrenheit(c):
    _check_celsius(c)
    return c * 9 / 5 + 32


def fahrenheit_to_celsius(f):
    c = (f - 32) * 9 / 5
    _check_celsius(c)
    return c


def celsius_to_kelvin(c):
    _check_celsius(c)
    return c - ABSOLUTE_ZERO_C


def kelvin_to_celsius(k):
    if k < 0:
        raise ValueError(f"{k} K is below absolute zero")
    return k + ABSOLUTE_ZERO_C


def fahrenheit_to_kelvin(f):
    return celsius_to_kelvin(fahrenheit_to_celsius(f))
