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
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.route import FIELDS, Route, parse_row_safe, to_row
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
