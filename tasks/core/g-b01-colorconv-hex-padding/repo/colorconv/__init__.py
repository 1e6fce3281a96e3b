"""colorconv: colour conversions."""

from colorconv.hexcodes import hex_to_rgb, rgb_to_hex

__all__ = ["hex_to_rgb", "rgb_to_hex"]
