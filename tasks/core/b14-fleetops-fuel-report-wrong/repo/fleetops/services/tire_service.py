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
- find_duplicates()
- changes_between()
- check_references()
- count_by_vehicle()
- share_by_position()
- median_tread_mm()
- bucket_tread_mm()
- outside_tread_mm()
- first_and_last()
- busiest_month()
- days_since_previous()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.tire import (
    FIELDS,
    Tire,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util.dates import days_between, in_range, month_of
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


def find_duplicates(records: Iterable[Tire]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Tire], after: Iterable[Tire]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Tire], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (vehicles=...); a kind not given is not checked.
    """
    vehicles = stores.get("vehicles")
    problems = []
    for r in records:
        if vehicles is not None and not vehicles.has(r.vehicle_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no vehicle {r.vehicle_id}")
    return problems


def count_by_vehicle(records: Iterable[Tire]) -> dict[str, int]:
    """How many tires refer to each vehicle id, ids sorted."""
    counts = Counter(r.vehicle_id for r in records)
    return dict(sorted(counts.items()))


def share_by_position(records: Iterable[Tire]) -> dict[str, float]:
    """Percent of tires per position, one decimal (all 0.0 when there are none)."""
    counts = count_by_position(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_tread_mm(records: Iterable[Tire]) -> float | None:
    """The median tread_mm, or None when there are no records."""
    values = sorted(r.tread_mm for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_tread_mm(records: Iterable[Tire], edges: list[float]) -> dict[str, int]:
    """Counts of tires per tread_mm range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.tread_mm)]] += 1
    return counts


def outside_tread_mm(records: Iterable[Tire], low: float, high: float) -> list[Tire]:
    """Tire records whose tread_mm is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.tread_mm < low or r.tread_mm > high]


def first_and_last(records: Iterable[Tire]) -> tuple[str, str] | None:
    """The earliest and latest fitted, or None when there are no records."""
    days = [r.fitted for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Tire]) -> str | None:
    """The month (YYYY-MM) with the most tires; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Tire]) -> dict[str, int]:
    """Per record id, days since the tire before it (fitted order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.fitted, after.fitted)
    return gaps


def export_json_lines(records: Iterable[Tire]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: TireStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: TireStore, records: Iterable[Tire], overwrite: bool = False) -> dict[str, int]:
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
