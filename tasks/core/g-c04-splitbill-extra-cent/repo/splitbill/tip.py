"""Tips in whole cents, rounded half up, without floating point."""


def tip_cents(subtotal_cents, percent):
    """`percent` (an int, e.g. 15) of the subtotal, rounded half up to a cent."""
    if percent < 0:
        raise ValueError("percent must not be negative")
    return (subtotal_cents * percent + 50) // 100


def add_tip(subtotal_cents, percent):
    """The total with the tip added."""
    return subtotal_cents + tip_cents(subtotal_cents, percent)


def round_up_total(total_cents, step_cents=100):
    """Round a total up to the next multiple of `step_cents` (people like round numbers)."""
    if step_cents < 1:
        raise ValueError("step_cents must be positive")
    return -(-total_cents // step_cents) * step_cents
