"""Blending colours."""


def mix(a, b, t=0.5):
    """The colour t of the way from a to b (t=0 gives a, t=1 gives b)."""
    if not 0 <= t <= 1:
        raise ValueError("t must be between 0 and 1")
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b))


def lighten(rgb, amount):
    """Mix with white by amount (0..1)."""
    return mix(rgb, (255, 255, 255), amount)
