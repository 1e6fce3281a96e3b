"""Palettes for the theme builder: tints, shades and evenly spaced ramps."""

from colorconv.hsl import hsl_to_rgb, rgb_to_hsl
from colorconv.mix import mix


def ramp(a, b, steps):
    """`steps` colours from a to b inclusive, evenly spaced."""
    if steps < 2:
        raise ValueError("a ramp needs at least 2 steps")
    return [mix(a, b, i / (steps - 1)) for i in range(steps)]


def tints(rgb, count=4):
    """`count` lighter versions of a colour, lightest last (towards, not including, white)."""
    return [mix(rgb, (255, 255, 255), i / (count + 1)) for i in range(1, count + 1)]


def shades(rgb, count=4):
    """`count` darker versions of a colour, darkest last (towards, not including, black)."""
    return [mix(rgb, (0, 0, 0), i / (count + 1)) for i in range(1, count + 1)]


def complement(rgb):
    """The colour opposite on the colour wheel (hue + 180 degrees)."""
    h, s, lightness = rgb_to_hsl(rgb)
    return hsl_to_rgb(((h + 180) % 360, s, lightness))


def grayscale(rgb):
    """The luma-weighted grey (ITU-R BT.601 weights) of a colour."""
    r, g, b = rgb
    y = round(0.299 * r + 0.587 * g + 0.114 * b)
    return (y, y, y)
