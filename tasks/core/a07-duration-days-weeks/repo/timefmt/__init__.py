"""Compact durations: '1h30m' <-> 5400 seconds."""

from .format import format_duration
from .parse import parse_duration

__all__ = ["format_duration", "parse_duration"]
