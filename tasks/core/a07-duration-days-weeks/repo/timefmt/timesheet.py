"""Adding up durations from a timesheet.

A timesheet is plain text, one entry per line: a duration, then a task name::

    1h30m  code review
    45m    standup
    # lunch is not billed

Blank lines and ``#`` comments are skipped. Durations use the compact form of parse_duration.
"""

from dataclasses import dataclass

from .parse import parse_duration


class TimesheetError(ValueError):
    """A timesheet line that cannot be read; the message names the line number."""


@dataclass(frozen=True)
class Entry:
    seconds: int
    task: str


def parse_timesheet(text: str) -> list[Entry]:
    entries = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        duration, _, task = line.partition(" ")
        task = task.strip()
        if not task:
            raise TimesheetError(f"line {lineno}: missing task name after {duration!r}")
        try:
            seconds = parse_duration(duration)
        except ValueError as exc:
            raise TimesheetError(f"line {lineno}: {exc}") from None
        entries.append(Entry(seconds, task))
    return entries


def totals(entries: list[Entry]) -> dict[str, int]:
    """Seconds per task, tasks in order of first appearance."""
    result: dict[str, int] = {}
    for entry in entries:
        result[entry.task] = result.get(entry.task, 0) + entry.seconds
    return result


def billable_hours(seconds: int, increment_minutes: int = 15) -> float:
    """Hours rounded up to the billing increment: 50 minutes -> 1.0 at 15-minute steps."""
    if increment_minutes < 1:
        raise ValueError("increment_minutes must be at least 1")
    step = increment_minutes * 60
    return -(-seconds // step) * step / 3600
