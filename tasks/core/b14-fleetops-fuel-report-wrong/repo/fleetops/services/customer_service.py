"""Business rules for customers.

Functions:

- create_customer()
- update_customer()
- count_by_segment()
- total_credit_limit_cents()
- credit_limit_stats()
- top_by_credit_limit()
- only_segment()
- validate_all()
- export_rows()
- import_rows()
- find_duplicates()
- changes_between()
- share_by_segment()
- median_credit_limit()
- bucket_credit_limit()
- outside_credit_limit()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.customer import (
    FIELDS,
    Customer,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util import money
from fleetops.store.customer_store import CustomerStore


def create_customer(store: CustomerStore, data: dict, **refs: object) -> Customer:
    """Build, validate and store a customer; refs are stores to check references in."""
    record = Customer.from_dict(data)
    return store.add(record)


def update_customer(store: CustomerStore, record_id: str, **changes: object) -> Customer:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"customer has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a customer cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Customer.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_segment(records: Iterable[Customer]) -> dict[str, int]:
    """How many customers have each segment, in the order of the choices."""
    counts = Counter(r.segment for r in records)
    return {k: counts.get(k, 0) for k in ('retail', 'industrial', 'public')}


def total_credit_limit_cents(records: Iterable[Customer]) -> int:
    """The exact total credit_limit in cents."""
    return money.sum_cents(r.credit_limit for r in records)


def credit_limit_stats(records: Iterable[Customer]) -> dict[str, float] | None:
    """count, min, max and mean of credit_limit; None when there are no records."""
    values = [r.credit_limit for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_credit_limit(records: Iterable[Customer], n: int = 5) -> list[Customer]:
    """The n customers with the largest credit_limit (ties by id)."""
    return sorted(records, key=lambda r: (-r.credit_limit, r.id))[:n]


def only_segment(records: Iterable[Customer], value: str) -> list[Customer]:
    if value not in ('retail', 'industrial', 'public'):
        raise ValidationError(f"segment must be one of retail, industrial, public, got {value!r}")
    return [r for r in records if r.segment == value]


def validate_all(records: Iterable[Customer]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Customer]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: CustomerStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def find_duplicates(records: Iterable[Customer]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Customer], after: Iterable[Customer]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def share_by_segment(records: Iterable[Customer]) -> dict[str, float]:
    """Percent of customers per segment, one decimal (all 0.0 when there are none)."""
    counts = count_by_segment(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_credit_limit(records: Iterable[Customer]) -> float | None:
    """The median credit_limit, or None when there are no records."""
    values = sorted(r.credit_limit for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_credit_limit(records: Iterable[Customer], edges: list[float]) -> dict[str, int]:
    """Counts of customers per credit_limit range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.credit_limit)]] += 1
    return counts


def outside_credit_limit(records: Iterable[Customer], low: float, high: float) -> list[Customer]:
    """Customer records whose credit_limit is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.credit_limit < low or r.credit_limit > high]


def export_json_lines(records: Iterable[Customer]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: CustomerStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: CustomerStore, records: Iterable[Customer], overwrite: bool = False) -> dict[str, int]:
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
