"""Business rules for inspections.

Functions:

- create_inspection()
- update_inspection()
- count_by_result()
- group_by_vehicle()
- only_result()
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
from fleetops.models.inspection import FIELDS, Inspection, parse_row_safe, to_row
from fleetops.util.dates import in_range, month_of
from fleetops.store.inspection_store import InspectionStore


def create_inspection(store: InspectionStore, data: dict, **refs: object) -> Inspection:
    """Build, validate and store a inspection; refs are stores to check references in."""
    record = Inspection.from_dict(data)
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"inspection {record.id}: no vehicle {record.vehicle_id}")
    return store.add(record)


def update_inspection(store: InspectionStore, record_id: str, **changes: object) -> Inspection:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"inspection has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a inspection cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Inspection.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_result(records: Iterable[Inspection]) -> dict[str, int]:
    """How many inspections have each result, in the order of the choices."""
    counts = Counter(r.result for r in records)
    return {k: counts.get(k, 0) for k in ('pass', 'minor', 'fail')}


def group_by_vehicle(records: Iterable[Inspection]) -> dict[str, list[Inspection]]:
    """Inspection records per vehicle id, in first-seen order."""
    groups: dict[str, list[Inspection]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def only_result(records: Iterable[Inspection], value: str) -> list[Inspection]:
    if value not in ('pass', 'minor', 'fail'):
        raise ValidationError(f"result must be one of pass, minor, fail, got {value!r}")
    return [r for r in records if r.result == value]


def distinct_vehicles(records: Iterable[Inspection]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def validate_all(records: Iterable[Inspection]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Inspection]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: InspectionStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Inspection], start: str | None, end: str | None) -> list[Inspection]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Inspection]) -> dict[str, int]:
    """Number of inspections per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
