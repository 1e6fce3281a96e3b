"""Short human-readable sizes for report tables."""

SUFFIXES = ("B", "KiB", "MiB", "GiB", "TiB")


def human(n_bytes, precision=1):
    """Format a byte count with the largest unit that keeps the number at least 1.

    Plain bytes are shown without decimals; larger units with `precision` decimals.
    Negative counts (a shrinking backup) keep their sign.
    """
    if not isinstance(n_bytes, int):
        raise TypeError("n_bytes must be an int")
    sign = "-" if n_bytes < 0 else ""
    value = float(abs(n_bytes))
    index = 0
    while value >= 1024 and index < len(SUFFIXES) - 1:
        value /= 1024
        index += 1
    if index == 0:
        return f"{sign}{int(value)} B"
    return f"{sign}{value:.{precision}f} {SUFFIXES[index]}"


def human_delta(before, after):
    """The change between two sizes, always with a sign: '+2.0 KiB', '-512 B', '0 B'."""
    change = after - before
    if change == 0:
        return "0 B"
    text = human(change)
    return text if change < 0 else "+" + text


def table(rows, width=12):
    """Right-align the sizes of (name, n_bytes) rows under a header, one line each."""
    lines = [f"{'name':<{width}} {'size':>10}"]
    for name, n_bytes in rows:
        lines.append(f"{name:<{width}} {human(n_bytes):>10}")
    return "\n".join(lines)
