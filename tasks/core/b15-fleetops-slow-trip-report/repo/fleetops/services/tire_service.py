"""Business rules for tires.

Functions:

- create_tire()
- update_tire()
- count_by_position()
- group_by_vehicle()
- total_tread_mm()
- average_tread_mm()
- tread_mm_stats()
- top_by_tread_mm()
- only_position()
- distinct_vehicles()
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
from fleetops.models.tire import FIELDS, Tire, parse_row_safe, to_row
from fleetops.util.dates import in_range, month_of
from fleetops.store.tire_store import TireStore


def create_tire(store: TireStore, data: dict, **refs: object) -> Tire:
    """Build, validate and store a tire; refs are stores to check references in."""
    record = Tire.from_dict(data)
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"tire {record.id}: no vehicle {record.vehicle_id}")
    return store.add(record)


def update_tire(store: TireStore, record_id: str, **changes: object) -> Tire:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"tire has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a tire cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Tire.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_position(records: Iterable[Tire]) -> dict[str, int]:
    """How many tires have each position, in the order of the choices."""
    counts = Counter(r.position for r in records)
    return {k: counts.get(k, 0) for k in ('FL', 'FR', 'RL', 'RR')}


def group_by_vehicle(records: Iterable[Tire]) -> dict[str, list[Tire]]:
    """Tire records per vehicle id, in first-seen order."""
    groups: dict[str, list[Tire]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def total_tread_mm(records: Iterable[Tire]) -> float:
    return sum(r.tread_mm for r in records)


def average_tread_mm(records: Iterable[Tire]) -> float | None:
    """The mean tread_mm, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.tread_mm for r in data) / len(data)


def tread_mm_stats(records: Iterable[Tire]) -> dict[str, float] | None:
    """count, min, max and mean of tread_mm; None when there are no records."""
    values = [r.tread_mm for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_tread_mm(records: Iterable[Tire], n: int = 5) -> list[Tire]:
    """The n tires with the largest tread_mm (ties by id)."""
    return sorted(records, key=lambda r: (-r.tread_mm, r.id))[:n]


def only_position(records: Iterable[Tire], value: str) -> list[Tire]:
    if value not in ('FL', 'FR', 'RL', 'RR'):
        raise ValidationError(f"position must be one of FL, FR, RL, RR, got {value!r}")
    return [r for r in records if r.position == value]


def distinct_vehicles(records: Iterable[Tire]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def validate_all(records: Iterable[Tire]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Tire]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: TireStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Tire], start: str | None, end: str | None) -> list[Tire]:
    return [r for r in records if in_range(r.fitted, start, end)]


def per_month(records: Iterable[Tire]) -> dict[str, int]:
    """Number of tires per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.fitted) for r in records)
    return dict(sorted(counts.items()))
