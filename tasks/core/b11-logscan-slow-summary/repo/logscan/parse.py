"""Parsing common-log-format lines into Request records."""

import re
from dataclasses import dataclass

_LINE = re.compile(
    r'^(?P<ip>\S+) \S+ \S+ \[(?P<time>[^\]]+)\] "(?P<method>[A-Z]+) (?P<path>\S+) [^"]*" '
    r"(?P<status>\d{3}) (?P<size>\d+|-)"
)


@dataclass(frozen=True)
class Request:
    ip: str
    time: str
    method: str
    path: str
    status: int
    size: int


def parse_line(line):
    """A Request, or None for a line that is not in common log format."""
    match = _LINE.match(line)
    if not match:
        return None
    size = match.group("size")
    return Request(
        ip=match.group("ip"),
        time=match.group("time"),
        method=match.group("method"),
        path=match.group("path").split("?", 1)[0],
        status=int(match.group("status")),
        size=0 if size == "-" else int(size),
    )


def parse_lines(lines):
    """Requests from an iterable of lines; malformed lines are skipped."""
    for line in lines:
        request = parse_line(line)
        if request is not None:
            yield request
