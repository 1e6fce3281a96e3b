"""Invoice numbers: YEAR-NNNNN, increasing within a year."""

from __future__ import annotations

from datetime import date


class InvoiceNumbers:
    def __init__(self) -> None:
        self._last: dict[int, int] = {}

    def next(self, day: date) -> str:
        number = self._last.get(day.year, 0) + 1
        self._last[day.year] = number
        return f"{day.year}-{number:05d}"
