"""The median of a list of numbers."""


def median(values):
    """Middle value of the sorted values; the mean of the two middle ones for even lengths."""
    if not values:
        raise ValueError("median of an empty list")
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2
