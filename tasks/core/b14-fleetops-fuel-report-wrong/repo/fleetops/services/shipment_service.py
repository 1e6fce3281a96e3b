"""Business rules for shipments.

Functions:

- create_shipment()
- update_shipment()
- count_by_status()
- group_by_customer()
- group_by_trip()
- total_weight_kg()
- average_weight_kg()
- weight_kg_stats()
- top_by_weight_kg()
- only_status()
- distinct_customers()
- distinct_trips()
- validate_all()
- export_rows()
- import_rows()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.shipment import FIELDS, Shipment, parse_row_safe, to_row
from fleetops.store.shipment_store import ShipmentStore


def create_shipment(store: ShipmentStore, data: dict, **refs: object) -> Shipment:
    """Build, validate and store a shipment; refs are stores to check references in."""
    record = Shipment.from_dict(data)
    customer_store = refs.get("customers")
    if customer_store is not None and not customer_store.has(record.customer_id):
        raise NotFoundError(f"shipment {record.id}: no customer {record.customer_id}")
    trip_store = refs.get("trips")
    if trip_store is not None and not trip_store.has(record.trip_id):
        raise NotFoundError(f"shipment {record.id}: no trip {record.trip_id}")
    return store.add(record)


def update_shipment(store: ShipmentStore, record_id: str, **changes: object) -> Shipment:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"shipment has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a shipment cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Shipment.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_status(records: Iterable[Shipment]) -> dict[str, int]:
    """How many shipments have each status, in the order of the choices."""
    counts = Counter(r.status for r in records)
    return {k: counts.get(k, 0) for k in ('booked', 'loaded', 'delivered')}


def group_by_customer(records: Iterable[Shipment]) -> dict[str, list[Shipment]]:
    """Shipment records per customer id, in first-seen order."""
    groups: dict[str, list[Shipment]] = defaultdict(list)
    for r in records:
        groups[r.customer_id].append(r)
    return dict(groups)


def group_by_trip(records: Iterable[Shipment]) -> dict[str, list[Shipment]]:
    """Shipment records per trip id, in first-seen order."""
    groups: dict[str, list[Shipment]] = defaultdict(list)
    for r in records:
        groups[r.trip_id].append(r)
    return dict(groups)


def total_weight_kg(records: Iterable[Shipment]) -> float:
    return sum(r.weight_kg for r in records)


def average_weight_kg(records: Iterable[Shipment]) -> float | None:
    """The mean weight_kg, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.weight_kg for r in data) / len(data)


def weight_kg_stats(records: Iterable[Shipment]) -> dict[str, float] | None:
    """count, min, max and mean of weight_kg; None when there are no records."""
    values = [r.weight_kg for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_weight_kg(records: Iterable[Shipment], n: int = 5) -> list[Shipment]:
    """The n shipments with the largest weight_kg (ties by id)."""
    return sorted(records, key=lambda r: (-r.weight_kg, r.id))[:n]


def only_status(records: Iterable[Shipment], value: str) -> list[Shipment]:
    if value not in ('booked', 'loaded', 'delivered'):
        raise ValidationError(f"status must be one of booked, loaded, delivered, got {value!r}")
    return [r for r in records if r.status == value]


def distinct_customers(records: Iterable[Shipment]) -> list[str]:
    """The customer ids the records refer to, sorted, each once."""
    return sorted({r.customer_id for r in records})


def distinct_trips(records: Iterable[Shipment]) -> list[str]:
    """The trip ids the records refer to, sorted, each once."""
    return sorted({r.trip_id for r in records})


def validate_all(records: Iterable[Shipment]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Shipment]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: ShipmentStore, rows: Iterable[dict[str, str]]) -> list[str]:
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
