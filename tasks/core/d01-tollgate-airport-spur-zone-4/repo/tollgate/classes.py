"""Vehicle classes and their factors (percent of the class 1 charge).

The published tariff (docs/tariff-spec.md, "Vehicle classes") is the authority.
"""

CLASS_NAMES = {
    1: "car",
    2: "van or car with trailer",
    3: "two-axle lorry",
    4: "articulated lorry",
    5: "oversize load",
    6: "motorcycle",
}

CLASS_FACTORS = {
    1: 100,
    2: 150,
    3: 200,
    4: 250,
    5: 400,
    6: 50,
}

# classes that may register as low-emission vehicles (the green discount)
GREEN_CLASSES = frozenset({1, 2, 6})


def factor(vehicle_class):
    """The class's factor in percent; ValueError for an unknown class."""
    try:
        return CLASS_FACTORS[vehicle_class]
    except KeyError:
        raise ValueError(f"unknown vehicle class {vehicle_class!r} (1-6)") from None


def apply_factor(cents, vehicle_class):
    """A class 1 charge scaled to the class, rounded half up to the cent."""
    return (cents * factor(vehicle_class) + 50) // 100


def describe(vehicle_class):
    return f"class {vehicle_class} ({CLASS_NAMES[vehicle_class]})"
