"""Business rules for stops.

Functions:

- create_stop()
- update_stop()
- group_by_route()
- group_by_customer()
- total_window_minutes()
- average_window_minutes()
- sequence_stats()
- top_by_sequence()
- window_minutes_stats()
- top_by_window_minutes()
- distinct_routes()
- distinct_customers()
- validate_all()
- export_rows()
- import_rows()
- find_duplicates()
- changes_between()
- check_references()
- count_by_route()
- count_by_customer()
- median_window_minutes()
- bucket_window_minutes()
- outside_window_minutes()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.stop import (
    FIELDS,
    Stop,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.store.stop_store import StopStore


def create_stop(store: StopStore, data: dict, **refs: object) -> Stop:
    """Build, validate and store a stop; refs are stores to check references in."""
    record = Stop.from_dict(data)
    route_store = refs.get("routes")
    if route_store is not None and not route_store.has(record.route_id):
        raise NotFoundError(f"stop {record.id}: no route {record.route_id}")
    customer_store = refs.get("customers")
    if customer_store is not None and not customer_store.has(record.customer_id):
        raise NotFoundError(f"stop {record.id}: no customer {record.customer_id}")
    return store.add(record)


def update_stop(store: StopStore, record_id: str, **changes: object) -> Stop:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"stop has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a stop cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Stop.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_route(records: Iterable[Stop]) -> dict[str, list[Stop]]:
    """Stop records per route id, in first-seen order."""
    groups: dict[str, list[Stop]] = defaultdict(list)
    for r in records:
        groups[r.route_id].append(r)
    return dict(groups)


def group_by_customer(records: Iterable[Stop]) -> dict[str, list[Stop]]:
    """Stop records per customer id, in first-seen order."""
    groups: dict[str, list[Stop]] = defaultdict(list)
    for r in records:
        groups[r.customer_id].append(r)
    return dict(groups)


def total_window_minutes(records: Iterable[Stop]) -> float:
    return sum(r.window_minutes for r in records)


def average_window_minutes(records: Iterable[Stop]) -> float | None:
    """The mean window_minutes, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.window_minutes for r in data) / len(data)


def sequence_stats(records: Iterable[Stop]) -> dict[str, float] | None:
    """count, min, max and mean of sequence; None when there are no records."""
    values = [r.sequence for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_sequence(records: Iterable[Stop], n: int = 5) -> list[Stop]:
    """The n stops with the largest sequence (ties by id)."""
    return sorted(records, key=lambda r: (-r.sequence, r.id))[:n]


def window_minutes_stats(records: Iterable[Stop]) -> dict[str, float] | None:
    """count, min, max and mean of window_minutes; None when there are no records."""
    values = [r.window_minutes for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_window_minutes(records: Iterable[Stop], n: int = 5) -> list[Stop]:
    """The n stops with the largest window_minutes (ties by id)."""
    return sorted(records, key=lambda r: (-r.window_minutes, r.id))[:n]


def distinct_routes(records: Iterable[Stop]) -> list[str]:
    """The route ids the records refer to, sorted, each once."""
    return sorted({r.route_id for r in records})


def distinct_customers(records: Iterable[Stop]) -> list[str]:
    """The customer ids the records refer to, sorted, each once."""
    return sorted({r.customer_id for r in records})


def validate_all(records: Iterable[Stop]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Stop]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: StopStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def find_duplicates(records: Iterable[Stop]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Stop], after: Iterable[Stop]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Stop], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (routes=, customers=...); a kind not given is not checked.
    """
    routes = stores.get("routes")
    customers = stores.get("customers")
    problems = []
    for r in records:
        if routes is not None and not routes.has(r.route_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no route {r.route_id}")
        if customers is not None and not customers.has(r.customer_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no customer {r.customer_id}")
    return problems


def count_by_route(records: Iterable[Stop]) -> dict[str, int]:
    """How many stops refer to each route id, ids sorted."""
    counts = Counter(r.route_id for r in records)
    return dict(sorted(counts.items()))


def count_by_customer(records: Iterable[Stop]) -> dict[str, int]:
    """How many stops refer to each customer id, ids sorted."""
    counts = Counter(r.customer_id for r in records)
    return dict(sorted(counts.items()))


def median_window_minutes(records: Iterable[Stop]) -> float | None:
    """The median window_minutes, or None when there are no records."""
    values = sorted(r.window_minutes for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_window_minutes(records: Iterable[Stop], edges: list[float]) -> dict[str, int]:
    """Counts of stops per window_minutes range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.window_minutes)]] += 1
    return counts


def outside_window_minutes(records: Iterable[Stop], low: float, high: float) -> list[Stop]:
    """Stop records whose window_minutes is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.window_minutes < low or r.window_minutes > high]


def export_json_lines(records: Iterable[Stop]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: StopStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: StopStore, records: Iterable[Stop], overwrite: bool = False) -> dict[str, int]:
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
