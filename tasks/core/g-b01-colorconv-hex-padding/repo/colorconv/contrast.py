"""Contrast checks from WCAG 2.x, so theme text stays readable.

The contrast ratio of two colours runs from 1 (identical) to 21 (black on white). WCAG AA
asks for at least 4.5 for body text and 3 for large text; AAA for 7 and 4.5.
"""

LEVELS = {("AA", False): 4.5, ("AA", True): 3.0, ("AAA", False): 7.0, ("AAA", True): 4.5}


def _linear(channel):
    # sRGB transfer function, as defined in WCAG's relative luminance.
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def relative_luminance(rgb):
    """0.0 for black up to 1.0 for white."""
    r, g, b = (_linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b):
    """(lighter + 0.05) / (darker + 0.05), rounded to two decimals."""
    la, lb = relative_luminance(a), relative_luminance(b)
    lighter, darker = max(la, lb), min(la, lb)
    return round((lighter + 0.05) / (darker + 0.05), 2)


def passes(foreground, background, level="AA", large_text=False):
    """Whether the pair meets a WCAG level ('AA' or 'AAA')."""
    if (level, large_text) not in LEVELS:
        raise ValueError(f"level must be 'AA' or 'AAA', got {level!r}")
    return contrast_ratio(foreground, background) >= LEVELS[(level, large_text)]


def best_text_color(background):
    """Black or white, whichever contrasts more with the background."""
    black, white = (0, 0, 0), (255, 255, 255)
    if contrast_ratio(black, background) >= contrast_ratio(white, background):
        return black
    return white
