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
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.stop import FIELDS, Stop, parse_row_safe, to_row
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
