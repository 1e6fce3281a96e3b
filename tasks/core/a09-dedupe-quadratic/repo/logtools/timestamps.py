"""The leading ISO timestamp of a log line."""

import re

_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?\s+")


def strip_timestamp(line: str) -> str:
    return _STAMP.sub("", line, count=1)


def has_timestamp(line: str) -> bool:
    return bool(_STAMP.match(line))
