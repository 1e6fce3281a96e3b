"""unitconv: unit conversions for the weather-station dashboard."""

from unitconv import length, speed, temperature

__all__ = ["length", "speed", "temperature"]
