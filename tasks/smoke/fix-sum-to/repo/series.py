"""Small helpers for number series."""


def sum_to(n):
    """Return 1 + 2 + ... + n (0 when n < 1)."""
    return sum(range(1, n))


def squares(n):
    """Return the list [1, 4, 9, ..., n * n]."""
    return [i * i for i in range(1, n + 1)]
