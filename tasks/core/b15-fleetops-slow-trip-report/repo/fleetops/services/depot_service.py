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
- find_duplicates()
- changes_between()
- share_by_region()
- median_bays()
- bucket_bays()
- outside_bays()
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
from fleetops.models.depot import (
    FIELDS,
    Depot,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util.dates import days_between, in_range, month_of
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


def find_duplicates(records: Iterable[Depot]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Depot], after: Iterable[Depot]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def share_by_region(records: Iterable[Depot]) -> dict[str, float]:
    """Percent of depots per region, one decimal (all 0.0 when there are none)."""
    counts = count_by_region(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_bays(records: Iterable[Depot]) -> float | None:
    """The median bays, or None when there are no records."""
    values = sorted(r.bays for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_bays(records: Iterable[Depot], edges: list[float]) -> dict[str, int]:
    """Counts of depots per bays range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.bays)]] += 1
    return counts


def outside_bays(records: Iterable[Depot], low: float, high: float) -> list[Depot]:
    """Depot records whose bays is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.bays < low or r.bays > high]


def first_and_last(records: Iterable[Depot]) -> tuple[str, str] | None:
    """The earliest and latest opened, or None when there are no records."""
    days = [r.opened for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Depot]) -> str | None:
    """The month (YYYY-MM) with the most depots; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Depot]) -> dict[str, int]:
    """Per record id, days since the depot before it (opened order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.opened, after.opened)
    return gaps


def export_json_lines(records: Iterable[Depot]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: DepotStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: DepotStore, records: Iterable[Depot], overwrite: bool = False) -> dict[str, int]:
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
