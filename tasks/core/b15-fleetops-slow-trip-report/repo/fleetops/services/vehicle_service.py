"""Business rules for vehicles.

Functions:

- create_vehicle()
- update_vehicle()
- count_by_odometer_unit()
- group_by_depot()
- total_capacity_kg()
- average_capacity_kg()
- year_stats()
- top_by_year()
- capacity_kg_stats()
- top_by_capacity_kg()
- only_odometer_unit()
- distinct_depots()
- validate_all()
- export_rows()
- import_rows()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.vehicle import FIELDS, Vehicle, parse_row_safe, to_row
from fleetops.store.vehicle_store import VehicleStore


def create_vehicle(store: VehicleStore, data: dict, **refs: object) -> Vehicle:
    """Build, validate and store a vehicle; refs are stores to check references in."""
    record = Vehicle.from_dict(data)
    depot_store = refs.get("depots")
    if depot_store is not None and not depot_store.has(record.depot_id):
        raise NotFoundError(f"vehicle {record.id}: no depot {record.depot_id}")
    return store.add(record)


def update_vehicle(store: VehicleStore, record_id: str, **changes: object) -> Vehicle:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"vehicle has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a vehicle cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Vehicle.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_odometer_unit(records: Iterable[Vehicle]) -> dict[str, int]:
    """How many vehicles have each odometer_unit, in the order of the choices."""
    counts = Counter(r.odometer_unit for r in records)
    return {k: counts.get(k, 0) for k in ('km', 'mi')}


def group_by_depot(records: Iterable[Vehicle]) -> dict[str, list[Vehicle]]:
    """Vehicle records per depot id, in first-seen order."""
    groups: dict[str, list[Vehicle]] = defaultdict(list)
    for r in records:
        groups[r.depot_id].append(r)
    return dict(groups)


def total_capacity_kg(records: Iterable[Vehicle]) -> float:
    return sum(r.capacity_kg for r in records)


def average_capacity_kg(records: Iterable[Vehicle]) -> float | None:
    """The mean capacity_kg, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.capacity_kg for r in data) / len(data)


def year_stats(records: Iterable[Vehicle]) -> dict[str, float] | None:
    """count, min, max and mean of year; None when there are no records."""
    values = [r.year for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_year(records: Iterable[Vehicle], n: int = 5) -> list[Vehicle]:
    """The n vehicles with the largest year (ties by id)."""
    return sorted(records, key=lambda r: (-r.year, r.id))[:n]


def capacity_kg_stats(records: Iterable[Vehicle]) -> dict[str, float] | None:
    """count, min, max and mean of capacity_kg; None when there are no records."""
    values = [r.capacity_kg for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_capacity_kg(records: Iterable[Vehicle], n: int = 5) -> list[Vehicle]:
    """The n vehicles with the largest capacity_kg (ties by id)."""
    return sorted(records, key=lambda r: (-r.capacity_kg, r.id))[:n]


def only_odometer_unit(records: Iterable[Vehicle], value: str) -> list[Vehicle]:
    if value not in ('km', 'mi'):
        raise ValidationError(f"odometer_unit must be one of km, mi, got {value!r}")
    return [r for r in records if r.odometer_unit == value]


def distinct_depots(records: Iterable[Vehicle]) -> list[str]:
    """The depot ids the records refer to, sorted, each once."""
    return sorted({r.depot_id for r in records})


def validate_all(records: Iterable[Vehicle]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Vehicle]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: VehicleStore, rows: Iterable[dict[str, str]]) -> list[str]:
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
