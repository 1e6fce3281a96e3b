"""Hex colour codes <-> RGB tuples."""


def _check_channel(value):
    if not isinstance(value, int) or not 0 <= value <= 255:
        raise ValueError(f"channel must be an int from 0 to 255, got {value!r}")


def hex_to_rgb(code):
    """'#ff8000' or '#f80' -> (255, 128, 0)."""
    digits = code.lstrip("#")
    if len(digits) == 3:
        digits = "".join(ch * 2 for ch in digits)
    if len(digits) != 6:
        raise ValueError(f"not a hex colour: {code!r}")
    try:
        return tuple(int(digits[i : i + 2], 16) for i in (0, 2, 4))
    except ValueError:
        raise ValueError(f"not a hex colour: {code!r}") from None


def rgb_to_hex(rgb):
    """(255, 128, 0) -> '#ff8000'."""
    for channel in rgb:
        _check_channel(channel)
    return "#" + "".join(f"{channel:x}" for channel in rgb)
