"""RGB <-> HSL (hue in degrees, saturation and lightness from 0 to 1)."""

import colorsys


def rgb_to_hsl(rgb):
    r, g, b = (c / 255 for c in rgb)
    h, lightness, s = colorsys.rgb_to_hls(r, g, b)
    return (round(h * 360, 1), round(s, 3), round(lightness, 3))


def hsl_to_rgb(hsl):
    h, s, lightness = hsl
    r, g, b = colorsys.hls_to_rgb(h / 360, lightness, s)
    return tuple(round(c * 255) for c in (r, g, b))


def css_hsl(rgb):
    """The CSS functional form: (255, 128, 0) -> 'hsl(30, 100%, 50%)' (whole numbers)."""
    h, s, lightness = rgb_to_hsl(rgb)
    return f"hsl({round(h)}, {round(s * 100)}%, {round(lightness * 100)}%)"
