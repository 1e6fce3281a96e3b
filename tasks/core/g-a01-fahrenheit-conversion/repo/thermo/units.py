"""Unit names, symbols and physical constants shared by the thermo modules."""

ABSOLUTE_ZERO_C = -273.15
WATER_FREEZES_C = 0.0
WATER_BOILS_C = 100.0

CELSIUS = "C"
FAHRENHEIT = "F"
KELVIN = "K"

SYMBOLS = {CELSIUS: "°C", FAHRENHEIT: "°F", KELVIN: "K"}

# Accepted spellings on the command line and in config files.
_ALIASES = {
    "c": CELSIUS, "celsius": CELSIUS, "centigrade": CELSIUS,
    "f": FAHRENHEIT, "fahrenheit": FAHRENHEIT,
    "k": KELVIN, "kelvin": KELVIN,
}


def normalize_unit(name: str) -> str:
    """'celsius', 'C', ' c ' -> 'C'; raises ValueError naming the accepted units."""
    key = name.strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown unit {name!r}; use one of C, F, K")
    return _ALIASES[key]


def format_temperature(value: float, unit: str = CELSIUS, precision: int = 1) -> str:
    """A reading for display: format_temperature(21.456) -> '21.5 °C'."""
    unit = normalize_unit(unit)
    if precision < 0:
        raise ValueError("precision cannot be negative")
    return f"{value:.{precision}f} {SYMBOLS[unit]}"
