"""Business rules for incidents.

Functions:

- create_incident()
- update_incident()
- count_by_severity()
- group_by_vehicle()
- group_by_driver()
- total_damage_cents()
- damage_stats()
- top_by_damage()
- only_severity()
- distinct_vehicles()
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
from fleetops.models.incident import FIELDS, Incident, parse_row_safe, to_row
from fleetops.util import money
from fleetops.util.dates import in_range, month_of
from fleetops.store.incident_store import IncidentStore


def create_incident(store: IncidentStore, data: dict, **refs: object) -> Incident:
    """Build, validate and store a incident; refs are stores to check references in."""
    record = Incident.from_dict(data)
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"incident {record.id}: no vehicle {record.vehicle_id}")
    driver_store = refs.get("drivers")
    if driver_store is not None and not driver_store.has(record.driver_id):
        raise NotFoundError(f"incident {record.id}: no driver {record.driver_id}")
    return store.add(record)


def update_incident(store: IncidentStore, record_id: str, **changes: object) -> Incident:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"incident has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a incident cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Incident.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_severity(records: Iterable[Incident]) -> dict[str, int]:
    """How many incidents have each severity, in the order of the choices."""
    counts = Counter(r.severity for r in records)
    return {k: counts.get(k, 0) for k in ('low', 'medium', 'high')}


def group_by_vehicle(records: Iterable[Incident]) -> dict[str, list[Incident]]:
    """Incident records per vehicle id, in first-seen order."""
    groups: dict[str, list[Incident]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def group_by_driver(records: Iterable[Incident]) -> dict[str, list[Incident]]:
    """Incident records per driver id, in first-seen order."""
    groups: dict[str, list[Incident]] = defaultdict(list)
    for r in records:
        groups[r.driver_id].append(r)
    return dict(groups)


def total_damage_cents(records: Iterable[Incident]) -> int:
    """The exact total damage in cents."""
    return money.sum_cents(r.damage for r in records)


def damage_stats(records: Iterable[Incident]) -> dict[str, float] | None:
    """count, min, max and mean of damage; None when there are no records."""
    values = [r.damage for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_damage(records: Iterable[Incident], n: int = 5) -> list[Incident]:
    """The n incidents with the largest damage (ties by id)."""
    return sorted(records, key=lambda r: (-r.damage, r.id))[:n]


def only_severity(records: Iterable[Incident], value: str) -> list[Incident]:
    if value not in ('low', 'medium', 'high'):
        raise ValidationError(f"severity must be one of low, medium, high, got {value!r}")
    return [r for r in records if r.severity == value]


def distinct_vehicles(records: Iterable[Incident]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def distinct_drivers(records: Iterable[Incident]) -> list[str]:
    """The driver ids the records refer to, sorted, each once."""
    return sorted({r.driver_id for r in records})


def validate_all(records: Iterable[Incident]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Incident]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: IncidentStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Incident], start: str | None, end: str | None) -> list[Incident]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Incident]) -> dict[str, int]:
    """Number of incidents per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
