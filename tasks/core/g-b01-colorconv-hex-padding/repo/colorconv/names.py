"""A few CSS colour names, for theme files that say "navy" instead of "#000080"."""

from colorconv.hexcodes import hex_to_rgb

# A subset of the CSS Color Module Level 4 keywords; enough for our themes.
CSS_NAMES = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "red": (255, 0, 0),
    "lime": (0, 255, 0),
    "blue": (0, 0, 255),
    "yellow": (255, 255, 0),
    "cyan": (0, 255, 255),
    "magenta": (255, 0, 255),
    "silver": (192, 192, 192),
    "gray": (128, 128, 128),
    "maroon": (128, 0, 0),
    "olive": (128, 128, 0),
    "green": (0, 128, 0),
    "purple": (128, 0, 128),
    "teal": (0, 128, 128),
    "navy": (0, 0, 128),
    "orange": (255, 165, 0),
    "rebeccapurple": (102, 51, 153),
}


def parse_color(text):
    """A CSS name ('Navy') or a hex code ('#000080', '#008') -> an RGB tuple."""
    key = text.strip().lower()
    if key in CSS_NAMES:
        return CSS_NAMES[key]
    if key.startswith("#"):
        return hex_to_rgb(key)
    raise ValueError(f"unknown colour {text!r}: use a CSS name or a #hex code")


def _distance(a, b):
    return sum((x - y) ** 2 for x, y in zip(a, b))


def nearest_name(rgb):
    """The CSS name closest to a colour (plain RGB distance); ties go to the earlier name."""
    return min(CSS_NAMES, key=lambda name: _distance(CSS_NAMES[name], rgb))
