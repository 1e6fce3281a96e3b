"""Business rules for routes.

Functions:

- create_route()
- update_route()
- count_by_kind()
- group_by_depot()
- total_distance_km()
- average_distance_km()
- distance_km_stats()
- top_by_distance_km()
- only_kind()
- distinct_depots()
- validate_all()
- export_rows()
- import_rows()
- find_duplicates()
- changes_between()
- check_references()
- count_by_depot()
- share_by_kind()
- median_distance_km()
- bucket_distance_km()
- outside_distance_km()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.route import (
    FIELDS,
    Route,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.store.route_store import RouteStore


def create_route(store: RouteStore, data: dict, **refs: object) -> Route:
    """Build, validate and store a route; refs are stores to check references in."""
    record = Route.from_dict(data)
    depot_store = refs.get("depots")
    if depot_store is not None and not depot_store.has(record.depot_id):
        raise NotFoundError(f"route {record.id}: no depot {record.depot_id}")
    return store.add(record)


def update_route(store: RouteStore, record_id: str, **changes: object) -> Route:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"route has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a route cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Route.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_kind(records: Iterable[Route]) -> dict[str, int]:
    """How many routes have each kind, in the order of the choices."""
    counts = Counter(r.kind for r in records)
    return {k: counts.get(k, 0) for k in ('urban', 'regional', 'longhaul')}


def group_by_depot(records: Iterable[Route]) -> dict[str, list[Route]]:
    """Route records per depot id, in first-seen order."""
    groups: dict[str, list[Route]] = defaultdict(list)
    for r in records:
        groups[r.depot_id].append(r)
    return dict(groups)


def total_distance_km(records: Iterable[Route]) -> float:
    return sum(r.distance_km for r in records)


def average_distance_km(records: Iterable[Route]) -> float | None:
    """The mean distance_km, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.distance_km for r in data) / len(data)


def distance_km_stats(records: Iterable[Route]) -> dict[str, float] | None:
    """count, min, max and mean of distance_km; None when there are no records."""
    values = [r.distance_km for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_distance_km(records: Iterable[Route], n: int = 5) -> list[Route]:
    """The n routes with the largest distance_km (ties by id)."""
    return sorted(records, key=lambda r: (-r.distance_km, r.id))[:n]


def only_kind(records: Iterable[Route], value: str) -> list[Route]:
    if value not in ('urban', 'regional', 'longhaul'):
        raise ValidationError(f"kind must be one of urban, regional, longhaul, got {value!r}")
    return [r for r in records if r.kind == value]


def distinct_depots(records: Iterable[Route]) -> list[str]:
    """The depot ids the records refer to, sorted, each once."""
    return sorted({r.depot_id for r in records})


def validate_all(records: Iterable[Route]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Route]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: RouteStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def find_duplicates(records: Iterable[Route]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Route], after: Iterable[Route]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Route], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (depots=...); a kind not given is not checked.
    """
    depots = stores.get("depots")
    problems = []
    for r in records:
        if depots is not None and not depots.has(r.depot_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no depot {r.depot_id}")
    return problems


def count_by_depot(records: Iterable[Route]) -> dict[str, int]:
    """How many routes refer to each depot id, ids sorted."""
    counts = Counter(r.depot_id for r in records)
    return dict(sorted(counts.items()))


def share_by_kind(records: Iterable[Route]) -> dict[str, float]:
    """Percent of routes per kind, one decimal (all 0.0 when there are none)."""
    counts = count_by_kind(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_distance_km(records: Iterable[Route]) -> float | None:
    """The median distance_km, or None when there are no records."""
    values = sorted(r.distance_km for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_distance_km(records: Iterable[Route], edges: list[float]) -> dict[str, int]:
    """Counts of routes per distance_km range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.distance_km)]] += 1
    return counts


def outside_distance_km(records: Iterable[Route], low: float, high: float) -> list[Route]:
    """Route records whose distance_km is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.distance_km < low or r.distance_km > high]


def export_json_lines(records: Iterable[Route]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: RouteStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: RouteStore, records: Iterable[Route], overwrite: bool = False) -> dict[str, int]:
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
