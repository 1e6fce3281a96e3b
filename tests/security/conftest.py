"""Counters for docs/reliability.md: each hardening test says what it tried and how it ended.

With EDGEAGENT_RELIABILITY_JSON set, the session's counts are merged into that file when the
tests end (tools/reliability_table.py sets it and renders the table); without it the counts are
kept in memory only, so a plain test run writes nothing.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

import pytest

ENV = "EDGEAGENT_RELIABILITY_JSON"


class Tally(Protocol):
    def __call__(self, category: str, **counts: int) -> None: ...


_COUNTS: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))


def tally(category: str, **counts: int) -> None:
    for key, value in counts.items():
        _COUNTS[category][key] += int(value)


@pytest.fixture(scope="session", autouse=True)
def _reliability_log() -> Iterator[None]:
    yield
    path = os.environ.get(ENV)
    if not path or not _COUNTS:
        return
    target = Path(path)
    merged: dict[str, dict[str, int]] = {}
    if target.exists():
        merged = json.loads(target.read_text())
    for category, counts in _COUNTS.items():
        slot = merged.setdefault(category, {})
        for key, value in counts.items():
            slot[key] = slot.get(key, 0) + value
    target.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n")


@pytest.fixture(scope="session")
def reliability() -> Tally:
    return tally
