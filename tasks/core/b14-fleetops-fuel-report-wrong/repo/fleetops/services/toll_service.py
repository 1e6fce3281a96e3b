"""Business rules for tolls.

Functions:

- create_toll()
- update_toll()
- group_by_trip()
- total_amount_cents()
- amount_stats()
- top_by_amount()
- distinct_trips()
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
from fleetops.models.toll import FIELDS, Toll, parse_row_safe, to_row
from fleetops.util import money
from fleetops.util.dates import in_range, month_of
from fleetops.store.toll_store import TollStore


def create_toll(store: TollStore, data: dict, **refs: object) -> Toll:
    """Build, validate and store a toll; refs are stores to check references in."""
    record = Toll.from_dict(data)
    trip_store = refs.get("trips")
    if trip_store is not None and not trip_store.has(record.trip_id):
        raise NotFoundError(f"toll {record.id}: no trip {record.trip_id}")
    return store.add(record)


def update_toll(store: TollStore, record_id: str, **changes: object) -> Toll:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"toll has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a toll cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Toll.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_trip(records: Iterable[Toll]) -> dict[str, list[Toll]]:
    """Toll records per trip id, in first-seen order."""
    groups: dict[str, list[Toll]] = defaultdict(list)
    for r in records:
        groups[r.trip_id].append(r)
    return dict(groups)


def total_amount_cents(records: Iterable[Toll]) -> int:
    """The exact total amount in cents."""
    return money.sum_cents(r.amount for r in records)


def amount_stats(records: Iterable[Toll]) -> dict[str, float] | None:
    """count, min, max and mean of amount; None when there are no records."""
    values = [r.amount for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_amount(records: Iterable[Toll], n: int = 5) -> list[Toll]:
    """The n tolls with the largest amount (ties by id)."""
    return sorted(records, key=lambda r: (-r.amount, r.id))[:n]


def distinct_trips(records: Iterable[Toll]) -> list[str]:
    """The trip ids the records refer to, sorted, each once."""
    return sorted({r.trip_id for r in records})


def validate_all(records: Iterable[Toll]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Toll]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: TollStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Toll], start: str | None, end: str | None) -> list[Toll]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Toll]) -> dict[str, int]:
    """Number of tolls per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
