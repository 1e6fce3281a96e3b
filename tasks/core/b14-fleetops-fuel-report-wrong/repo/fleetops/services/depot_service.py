"""Business rules for depots.

Functions:

- create_depot()
- update_depot()
- count_by_region()
- total_bays()
- average_bays()
- bays_stats()
- top_by_bays()
- only_region()
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
from fleetops.models.depot import FIELDS, Depot, parse_row_safe, to_row
from fleetops.util.dates import in_range, month_of
from fleetops.store.depot_store import DepotStore


def create_depot(store: DepotStore, data: dict, **refs: object) -> Depot:
    """Build, validate and store a depot; refs are stores to check references in."""
    record = Depot.from_dict(data)
    return store.add(record)


def update_depot(store: DepotStore, record_id: str, **changes: object) -> Depot:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"depot has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a depot cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Depot.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_region(records: Iterable[Depot]) -> dict[str, int]:
    """How many depots have each region, in the order of the choices."""
    counts = Counter(r.region for r in records)
    return {k: counts.get(k, 0) for k in ('north', 'south', 'east', 'west')}


def total_bays(records: Iterable[Depot]) -> float:
    return sum(r.bays for r in records)


def average_bays(records: Iterable[Depot]) -> float | None:
    """The mean bays, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.bays for r in data) / len(data)


def bays_stats(records: Iterable[Depot]) -> dict[str, float] | None:
    """count, min, max and mean of bays; None when there are no records."""
    values = [r.bays for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_bays(records: Iterable[Depot], n: int = 5) -> list[Depot]:
    """The n depots with the largest bays (ties by id)."""
    return sorted(records, key=lambda r: (-r.bays, r.id))[:n]


def only_region(records: Iterable[Depot], value: str) -> list[Depot]:
    if value not in ('north', 'south', 'east', 'west'):
        raise ValidationError(f"region must be one of north, south, east, west, got {value!r}")
    return [r for r in records if r.region == value]


def validate_all(records: Iterable[Depot]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Depot]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: DepotStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Depot], start: str | None, end: str | None) -> list[Depot]:
    return [r for r in records if in_range(r.opened, start, end)]


def per_month(records: Iterable[Depot]) -> dict[str, int]:
    """Number of depots per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.opened) for r in records)
    return dict(sorted(counts.items()))
