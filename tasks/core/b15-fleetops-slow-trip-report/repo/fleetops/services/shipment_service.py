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
- find_duplicates()
- changes_between()
- check_references()
- count_by_customer()
- count_by_trip()
- share_by_status()
- median_weight_kg()
- bucket_weight_kg()
- outside_weight_kg()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.shipment import (
    FIELDS,
    Shipment,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
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


def find_duplicates(records: Iterable[Shipment]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Shipment], after: Iterable[Shipment]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Shipment], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (customers=, trips=...); a kind not given is not checked.
    """
    customers = stores.get("customers")
    trips = stores.get("trips")
    problems = []
    for r in records:
        if customers is not None and not customers.has(r.customer_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no customer {r.customer_id}")
        if trips is not None and not trips.has(r.trip_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no trip {r.trip_id}")
    return problems


def count_by_customer(records: Iterable[Shipment]) -> dict[str, int]:
    """How many shipments refer to each customer id, ids sorted."""
    counts = Counter(r.customer_id for r in records)
    return dict(sorted(counts.items()))


def count_by_trip(records: Iterable[Shipment]) -> dict[str, int]:
    """How many shipments refer to each trip id, ids sorted."""
    counts = Counter(r.trip_id for r in records)
    return dict(sorted(counts.items()))


def share_by_status(records: Iterable[Shipment]) -> dict[str, float]:
    """Percent of shipments per status, one decimal (all 0.0 when there are none)."""
    counts = count_by_status(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_weight_kg(records: Iterable[Shipment]) -> float | None:
    """The median weight_kg, or None when there are no records."""
    values = sorted(r.weight_kg for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_weight_kg(records: Iterable[Shipment], edges: list[float]) -> dict[str, int]:
    """Counts of shipments per weight_kg range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.weight_kg)]] += 1
    return counts


def outside_weight_kg(records: Iterable[Shipment], low: float, high: float) -> list[Shipment]:
    """Shipment records whose weight_kg is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.weight_kg < low or r.weight_kg > high]


def export_json_lines(records: Iterable[Shipment]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: ShipmentStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: ShipmentStore, records: Iterable[Shipment], overwrite: bool = False) -> dict[str, int]:
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
