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
- find_duplicates()
- changes_between()
- check_references()
- count_by_vehicle()
- share_by_result()
- first_and_last()
- busiest_month()
- days_since_previous()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.inspection import (
    FIELDS,
    Inspection,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util.dates import days_between, in_range, month_of
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


def find_duplicates(records: Iterable[Inspection]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Inspection], after: Iterable[Inspection]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Inspection], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (vehicles=...); a kind not given is not checked.
    """
    vehicles = stores.get("vehicles")
    problems = []
    for r in records:
        if vehicles is not None and not vehicles.has(r.vehicle_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no vehicle {r.vehicle_id}")
    return problems


def count_by_vehicle(records: Iterable[Inspection]) -> dict[str, int]:
    """How many inspections refer to each vehicle id, ids sorted."""
    counts = Counter(r.vehicle_id for r in records)
    return dict(sorted(counts.items()))


def share_by_result(records: Iterable[Inspection]) -> dict[str, float]:
    """Percent of inspections per result, one decimal (all 0.0 when there are none)."""
    counts = count_by_result(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def first_and_last(records: Iterable[Inspection]) -> tuple[str, str] | None:
    """The earliest and latest day, or None when there are no records."""
    days = [r.day for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Inspection]) -> str | None:
    """The month (YYYY-MM) with the most inspections; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Inspection]) -> dict[str, int]:
    """Per record id, days since the inspection before it (day order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.day, after.day)
    return gaps


def export_json_lines(records: Iterable[Inspection]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: InspectionStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: InspectionStore, records: Iterable[Inspection], overwrite: bool = False) -> dict[str, int]:
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
