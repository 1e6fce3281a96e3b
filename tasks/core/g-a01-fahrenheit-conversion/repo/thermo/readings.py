"""Parsing weather-station logs.

A station log is plain text, one reading per line::

    # station: north-field
    2024-03-01T06:00, 4.5
    2024-03-01T07:00, 5.25

Blank lines and lines starting with ``#`` are ignored. Temperatures are in Celsius.
"""

from dataclasses import dataclass

from .units import ABSOLUTE_ZERO_C


class LogFormatError(ValueError):
    """A line of a station log could not be parsed; the message names the line number."""


@dataclass(frozen=True)
class Reading:
    """One hourly reading: an ISO timestamp (minute precision) and degrees Celsius."""

    timestamp: str
    celsius: float

    @property
    def day(self) -> str:
        """The calendar day of the reading, ``YYYY-MM-DD``."""
        return self.timestamp[:10]

    @property
    def hour(self) -> int:
        return int(self.timestamp[11:13])


def _check_timestamp(text: str, lineno: int) -> str:
    # Stations write "YYYY-MM-DDTHH:MM"; anything else is a corrupted line.
    if len(text) != 16 or text[4] != "-" or text[7] != "-" or text[10] != "T" or text[13] != ":":
        raise LogFormatError(f"line {lineno}: bad timestamp {text!r}")
    digits = text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16]
    if not digits.isdigit():
        raise LogFormatError(f"line {lineno}: bad timestamp {text!r}")
    if not 0 <= int(text[11:13]) <= 23 or not 0 <= int(text[14:16]) <= 59:
        raise LogFormatError(f"line {lineno}: time out of range in {text!r}")
    return text


def parse_line(line: str, lineno: int = 1) -> Reading | None:
    """One log line to a Reading; None for blank and comment lines."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 2:
        raise LogFormatError(f"line {lineno}: expected 'timestamp, celsius', got {line!r}")
    timestamp = _check_timestamp(parts[0], lineno)
    try:
        celsius = float(parts[1])
    except ValueError:
        raise LogFormatError(f"line {lineno}: not a number: {parts[1]!r}") from None
    if celsius < ABSOLUTE_ZERO_C:
        raise LogFormatError(f"line {lineno}: {celsius} °C is below absolute zero")
    return Reading(timestamp, celsius)


def parse_log(text: str) -> list[Reading]:
    """All readings of a station log, in file order."""
    readings = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        reading = parse_line(line, lineno)
        if reading is not None:
            readings.append(reading)
    return readings


def station_name(text: str) -> str | None:
    """The name from a ``# station: NAME`` header line, if the log has one."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#") and ":" in line:
            key, _, value = line[1:].partition(":")
            if key.strip().lower() == "station":
                return value.strip() or None
    return None


def by_day(readings: list[Reading]) -> dict[str, list[float]]:
    """Celsius values grouped by calendar day, days in ascending order."""
    days: dict[str, list[float]] = {}
    for reading in sorted(readings, key=lambda r: r.timestamp):
        days.setdefault(reading.day, []).append(reading.celsius)
    return days
