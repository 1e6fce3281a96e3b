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
- find_duplicates()
- changes_between()
- check_references()
- count_by_vehicle()
- count_by_driver()
- share_by_severity()
- median_damage()
- bucket_damage()
- outside_damage()
- first_and_last()
- busiest_month()
- days_since_previous()
- monthly_damage_cents()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.incident import (
    FIELDS,
    Incident,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util import money
from fleetops.util.dates import days_between, in_range, month_of
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


def find_duplicates(records: Iterable[Incident]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Incident], after: Iterable[Incident]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Incident], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (vehicles=, drivers=...); a kind not given is not checked.
    """
    vehicles = stores.get("vehicles")
    drivers = stores.get("drivers")
    problems = []
    for r in records:
        if vehicles is not None and not vehicles.has(r.vehicle_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no vehicle {r.vehicle_id}")
        if drivers is not None and not drivers.has(r.driver_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no driver {r.driver_id}")
    return problems


def count_by_vehicle(records: Iterable[Incident]) -> dict[str, int]:
    """How many incidents refer to each vehicle id, ids sorted."""
    counts = Counter(r.vehicle_id for r in records)
    return dict(sorted(counts.items()))


def count_by_driver(records: Iterable[Incident]) -> dict[str, int]:
    """How many incidents refer to each driver id, ids sorted."""
    counts = Counter(r.driver_id for r in records)
    return dict(sorted(counts.items()))


def share_by_severity(records: Iterable[Incident]) -> dict[str, float]:
    """Percent of incidents per severity, one decimal (all 0.0 when there are none)."""
    counts = count_by_severity(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_damage(records: Iterable[Incident]) -> float | None:
    """The median damage, or None when there are no records."""
    values = sorted(r.damage for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_damage(records: Iterable[Incident], edges: list[float]) -> dict[str, int]:
    """Counts of incidents per damage range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.damage)]] += 1
    return counts


def outside_damage(records: Iterable[Incident], low: float, high: float) -> list[Incident]:
    """Incident records whose damage is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.damage < low or r.damage > high]


def first_and_last(records: Iterable[Incident]) -> tuple[str, str] | None:
    """The earliest and latest day, or None when there are no records."""
    days = [r.day for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Incident]) -> str | None:
    """The month (YYYY-MM) with the most incidents; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Incident]) -> dict[str, int]:
    """Per record id, days since the incident before it (day order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.day, after.day)
    return gaps


def monthly_damage_cents(records: Iterable[Incident]) -> dict[str, int]:
    """Total damage in cents per month (YYYY-MM), months in order."""
    amounts: dict[str, list[float]] = defaultdict(list)
    for r in records:
        amounts[month_of(r.day)].append(r.damage)
    return {m: money.sum_cents(amounts[m]) for m in sorted(amounts)}


def export_json_lines(records: Iterable[Incident]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: IncidentStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: IncidentStore, records: Iterable[Incident], overwrite: bool = False) -> dict[str, int]:
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
