"""Reading entries from the till's daily CSV export.

The till writes ``date,type,amount,memo`` with dates as ``DD/MM/YYYY``, types ``SALE`` or
``REFUND`` and amounts like ``12.50``. Every problem is reported with its line number.
"""

import csv
import io
from datetime import date

from .entries import Entry
from .money import parse_money

_KIND_BY_TYPE = {"SALE": "sale", "REFUND": "refund"}


class TillExportError(ValueError):
    """A row of a till export that cannot be turned into an Entry."""


def parse_till_date(text: str) -> date:
    """'05/03/2024' -> date(2024, 3, 5)."""
    try:
        day, month, year = (int(part) for part in text.strip().split("/"))
        return date(year, month, day)
    except ValueError:
        raise ValueError(f"bad date {text!r} (expected DD/MM/YYYY)") from None


def read_till_export(text: str) -> list[Entry]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or [c.strip().lower() for c in rows[0]] != ["date", "type", "amount", "memo"]:
        raise TillExportError("line 1: header must be date,type,amount,memo")
    entries = []
    for lineno, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != 4:
            raise TillExportError(f"line {lineno}: expected 4 columns, got {len(row)}")
        kind = _KIND_BY_TYPE.get(row[1].strip().upper())
        if kind is None:
            raise TillExportError(f"line {lineno}: type must be SALE or REFUND, got {row[1]!r}")
        try:
            entries.append(Entry(parse_till_date(row[0]), kind, parse_money(row[2]),
                                 row[3].strip()))
        except ValueError as exc:
            raise TillExportError(f"line {lineno}: {exc}") from None
    return entries
