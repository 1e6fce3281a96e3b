"""Business rules for shifts.

Functions:

- create_shift()
- update_shift()
- group_by_driver()
- total_hours()
- average_hours()
- hours_stats()
- top_by_hours()
- distinct_drivers()
- validate_all()
- export_rows()
- import_rows()
- in_period()
- per_month()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.shift import FIELDS, Shift, parse_row_safe, to_row
from fleetops.util.dates import in_range, month_of
from fleetops.store.shift_store import ShiftStore


def create_shift(store: ShiftStore, data: dict, **refs: object) -> Shift:
    """Build, validate and store a shift; refs are stores to check references in."""
    record = Shift.from_dict(data)
    driver_store = refs.get("drivers")
    if driver_store is not None and not driver_store.has(record.driver_id):
        raise NotFoundError(f"shift {record.id}: no driver {record.driver_id}")
    return store.add(record)


def update_shift(store: ShiftStore, record_id: str, **changes: object) -> Shift:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"shift has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a shift cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Shift.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_driver(records: Iterable[Shift]) -> dict[str, list[Shift]]:
    """Shift records per driver id, in first-seen order."""
    groups: dict[str, list[Shift]] = defaultdict(list)
    for r in records:
        groups[r.driver_id].append(r)
    return dict(groups)


def total_hours(records: Iterable[Shift]) -> float:
    return sum(r.hours for r in records)


def average_hours(records: Iterable[Shift]) -> float | None:
    """The mean hours, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.hours for r in data) / len(data)


def hours_stats(records: Iterable[Shift]) -> dict[str, float] | None:
    """count, min, max and mean of hours; None when there are no records."""
    values = [r.hours for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_hours(records: Iterable[Shift], n: int = 5) -> list[Shift]:
    """The n shifts with the largest hours (ties by id)."""
    return sorted(records, key=lambda r: (-r.hours, r.id))[:n]


def distinct_drivers(records: Iterable[Shift]) -> list[str]:
    """The driver ids the records refer to, sorted, each once."""
    return sorted({r.driver_id for r in records})


def validate_all(records: Iterable[Shift]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Shift]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: ShiftStore, rows: Iterable[dict[str, str]]) -> list[str]:
    """Add every good row to the store; return one message per rejected row."""
    problems = []
    for n, row in enumerate(rows, start=1):
        record, problem = parse_row_safe(row)
        if record is None:
            problems.append(f"row {n}: {problem}")
            continue
        if store.has(record.id):
            problems.append(f"row {n}: duplicate id {record.id}")
            continue
        store.add(record)
    return problems


def in_period(records: Iterable[Shift], start: str | None, end: str | None) -> list[Shift]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Shift]) -> dict[str, int]:
    """Number of shifts per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
