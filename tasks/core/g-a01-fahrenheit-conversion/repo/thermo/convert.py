"""Conversions between Celsius, Fahrenheit and Kelvin."""

ABSOLUTE_ZERO_C = -273.15


def celsius_to_fahrenheit(celsius: float) -> float:
    """Degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def fahrenheit_to_celsius(fahrenheit: float) -> float:
    """Degrees Fahrenheit to degrees Celsius."""
    return (fahrenheit - 32) * 9 / 5


def celsius_to_kelvin(celsius: float) -> float:
    """Degrees Celsius to kelvin; refuses temperatures below absolute zero."""
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError(f"{celsius} °C is below absolute zero")
    return celsius - ABSOLUTE_ZERO_C


def kelvin_to_celsius(kelvin: float) -> float:
    if kelvin < 0:
        raise ValueError(f"{kelvin} K is below absolute zero")
    return kelvin + ABSOLUTE_ZERO_C
