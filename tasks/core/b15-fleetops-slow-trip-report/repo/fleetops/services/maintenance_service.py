"""Business rules for maintenances.

Functions:

- create_maintenance()
- update_maintenance()
- count_by_kind()
- group_by_vehicle()
- group_by_depot()
- total_labour_hours()
- average_labour_hours()
- total_cost_cents()
- labour_hours_stats()
- top_by_labour_hours()
- cost_stats()
- top_by_cost()
- only_kind()
- distinct_vehicles()
- distinct_depots()
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
from fleetops.models.maintenance import FIELDS, Maintenance, parse_row_safe, to_row
from fleetops.util import money
from fleetops.util.dates import in_range, month_of
from fleetops.store.maintenance_store import MaintenanceStore


def create_maintenance(store: MaintenanceStore, data: dict, **refs: object) -> Maintenance:
    """Build, validate and store a maintenance; refs are stores to check references in."""
    record = Maintenance.from_dict(data)
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"maintenance {record.id}: no vehicle {record.vehicle_id}")
    depot_store = refs.get("depots")
    if depot_store is not None and not depot_store.has(record.depot_id):
        raise NotFoundError(f"maintenance {record.id}: no depot {record.depot_id}")
    return store.add(record)


def update_maintenance(store: MaintenanceStore, record_id: str, **changes: object) -> Maintenance:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"maintenance has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a maintenance cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Maintenance.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_kind(records: Iterable[Maintenance]) -> dict[str, int]:
    """How many maintenances have each kind, in the order of the choices."""
    counts = Counter(r.kind for r in records)
    return {k: counts.get(k, 0) for k in ('service', 'repair', 'recall')}


def group_by_vehicle(records: Iterable[Maintenance]) -> dict[str, list[Maintenance]]:
    """Maintenance records per vehicle id, in first-seen order."""
    groups: dict[str, list[Maintenance]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def group_by_depot(records: Iterable[Maintenance]) -> dict[str, list[Maintenance]]:
    """Maintenance records per depot id, in first-seen order."""
    groups: dict[str, list[Maintenance]] = defaultdict(list)
    for r in records:
        groups[r.depot_id].append(r)
    return dict(groups)


def total_labour_hours(records: Iterable[Maintenance]) -> float:
    return sum(r.labour_hours for r in records)


def average_labour_hours(records: Iterable[Maintenance]) -> float | None:
    """The mean labour_hours, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.labour_hours for r in data) / len(data)


def total_cost_cents(records: Iterable[Maintenance]) -> int:
    """The exact total cost in cents."""
    return money.sum_cents(r.cost for r in records)


def labour_hours_stats(records: Iterable[Maintenance]) -> dict[str, float] | None:
    """count, min, max and mean of labour_hours; None when there are no records."""
    values = [r.labour_hours for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_labour_hours(records: Iterable[Maintenance], n: int = 5) -> list[Maintenance]:
    """The n maintenances with the largest labour_hours (ties by id)."""
    return sorted(records, key=lambda r: (-r.labour_hours, r.id))[:n]


def cost_stats(records: Iterable[Maintenance]) -> dict[str, float] | None:
    """count, min, max and mean of cost; None when there are no records."""
    values = [r.cost for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_cost(records: Iterable[Maintenance], n: int = 5) -> list[Maintenance]:
    """The n maintenances with the largest cost (ties by id)."""
    return sorted(records, key=lambda r: (-r.cost, r.id))[:n]


def only_kind(records: Iterable[Maintenance], value: str) -> list[Maintenance]:
    if value not in ('service', 'repair', 'recall'):
        raise ValidationError(f"kind must be one of service, repair, recall, got {value!r}")
    return [r for r in records if r.kind == value]


def distinct_vehicles(records: Iterable[Maintenance]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def distinct_depots(records: Iterable[Maintenance]) -> list[str]:
    """The depot ids the records refer to, sorted, each once."""
    return sorted({r.depot_id for r in records})


def validate_all(records: Iterable[Maintenance]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Maintenance]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: MaintenanceStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Maintenance], start: str | None, end: str | None) -> list[Maintenance]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Maintenance]) -> dict[str, int]:
    """Number of maintenances per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
