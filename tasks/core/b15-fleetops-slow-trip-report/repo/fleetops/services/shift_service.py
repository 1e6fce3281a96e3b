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
- find_duplicates()
- changes_between()
- check_references()
- count_by_driver()
- median_hours()
- bucket_hours()
- outside_hours()
- first_and_last()
- busiest_month()
- days_since_previous()
- split_by_overtime()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.shift import (
    FIELDS,
    Shift,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util.dates import days_between, in_range, month_of
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


def find_duplicates(records: Iterable[Shift]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Shift], after: Iterable[Shift]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Shift], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (drivers=...); a kind not given is not checked.
    """
    drivers = stores.get("drivers")
    problems = []
    for r in records:
        if drivers is not None and not drivers.has(r.driver_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no driver {r.driver_id}")
    return problems


def count_by_driver(records: Iterable[Shift]) -> dict[str, int]:
    """How many shifts refer to each driver id, ids sorted."""
    counts = Counter(r.driver_id for r in records)
    return dict(sorted(counts.items()))


def median_hours(records: Iterable[Shift]) -> float | None:
    """The median hours, or None when there are no records."""
    values = sorted(r.hours for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_hours(records: Iterable[Shift], edges: list[float]) -> dict[str, int]:
    """Counts of shifts per hours range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.hours)]] += 1
    return counts


def outside_hours(records: Iterable[Shift], low: float, high: float) -> list[Shift]:
    """Shift records whose hours is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.hours < low or r.hours > high]


def first_and_last(records: Iterable[Shift]) -> tuple[str, str] | None:
    """The earliest and latest day, or None when there are no records."""
    days = [r.day for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Shift]) -> str | None:
    """The month (YYYY-MM) with the most shifts; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Shift]) -> dict[str, int]:
    """Per record id, days since the shift before it (day order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.day, after.day)
    return gaps


def split_by_overtime(records: Iterable[Shift]) -> tuple[list[Shift], list[Shift]]:
    """(shifts with overtime true, shifts with overtime false), each in input order."""
    yes: list[Shift] = []
    no: list[Shift] = []
    for r in records:
        (yes if r.overtime else no).append(r)
    return yes, no


def export_json_lines(records: Iterable[Shift]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: ShiftStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: ShiftStore, records: Iterable[Shift], overwrite: bool = False) -> dict[str, int]:
    """Add new records; replace stored ones with the same id only when overwrite is set.

    Returns how many were added, replaced and skipped (same id, not overwritten).
    """
    counts = {"added": 0, "replaced": 0, "skipped": 0}
    for r in records:
        if not store.has(r.id):
            store.add(r)
            counts["added"] += 1
        elif overwrite:
            store.upsert(r)
            counts["replaced"] += 1
        else:
            counts["skipped"] += 1
    return counts
