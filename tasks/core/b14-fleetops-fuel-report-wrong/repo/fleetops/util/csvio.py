"""Reading record CSV files (one file per kind, header row first)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from fleetops.errors import FleetError, ValidationError

T = TypeVar("T")


def read_rows(path: Path) -> Iterator[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            yield from csv.DictReader(f)
    except OSError as exc:
        raise FleetError(f"cannot read {path}: {exc.strerror}") from None


def load_records(path: Path, parse: Callable[[dict[str, str]], T]) -> list[T]:
    """Parse every row; a bad row raises ValidationError naming the file and line."""
    records = []
    for line, row in enumerate(read_rows(path), start=2):
        try:
            records.append(parse(row))
        except (KeyError, ValueError) as exc:
            raise ValidationError(f"{path}:{line}: {exc}") from None
    return records
