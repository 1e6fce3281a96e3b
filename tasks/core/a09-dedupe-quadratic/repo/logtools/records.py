"""Splitting a log line into its parts.

Lines look like ``2024-05-01T12:00:00 INFO [worker-2] message``: an optional ISO
timestamp, an optional level, an optional ``[source]`` and the message.
"""

import re
from dataclasses import dataclass

from .timestamps import has_timestamp

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_LINE = re.compile(
    r"^(?:(?P<ts>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?)\s+)?"
    r"(?:(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+)?"
    r"(?:\[(?P<source>[^\]]+)\]\s*)?"
    r"(?P<message>.*)$"
)


@dataclass(frozen=True)
class Record:
    timestamp: str | None
    level: str | None
    source: str | None
    message: str

    def severity(self) -> int:
        """0 for DEBUG up to 4 for CRITICAL; -1 for lines without a level."""
        return LEVELS.index(self.level) if self.level else -1


def parse_record(line: str) -> Record:
    match = _LINE.match(line.rstrip("\n"))
    assert match is not None  # the message group matches anything
    return Record(match["ts"], match["level"], match["source"], match["message"])


def at_least(lines: list[str], level: str) -> list[str]:
    """Lines at or above a level ('WARNING' keeps WARNING, ERROR and CRITICAL)."""
    level = level.upper()
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    threshold = LEVELS.index(level)
    return [line for line in lines if parse_record(line).severity() >= threshold]


def untimed(lines: list[str]) -> list[str]:
    """Lines without a leading timestamp (continuations such as stack traces)."""
    return [line for line in lines if not has_timestamp(line)]
