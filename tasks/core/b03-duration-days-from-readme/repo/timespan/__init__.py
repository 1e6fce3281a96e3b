"""timespan: parse and format human durations."""

from timespan.format import format_duration
from timespan.parse import parse_duration

__all__ = ["format_duration", "parse_duration"]
