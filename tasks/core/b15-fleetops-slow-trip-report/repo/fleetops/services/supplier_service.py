"""Business rules for suppliers.

Functions:

- create_supplier()
- update_supplier()
- total_lead_days()
- average_lead_days()
- lead_days_stats()
- top_by_lead_days()
- validate_all()
- export_rows()
- import_rows()
- find_duplicates()
- changes_between()
- median_lead_days()
- bucket_lead_days()
- outside_lead_days()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.supplier import (
    FIELDS,
    Supplier,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.store.supplier_store import SupplierStore


def create_supplier(store: SupplierStore, data: dict, **refs: object) -> Supplier:
    """Build, validate and store a supplier; refs are stores to check references in."""
    record = Supplier.from_dict(data)
    return store.add(record)


def update_supplier(store: SupplierStore, record_id: str, **changes: object) -> Supplier:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"supplier has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a supplier cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Supplier.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def total_lead_days(records: Iterable[Supplier]) -> float:
    return sum(r.lead_days for r in records)


def average_lead_days(records: Iterable[Supplier]) -> float | None:
    """The mean lead_days, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.lead_days for r in data) / len(data)


def lead_days_stats(records: Iterable[Supplier]) -> dict[str, float] | None:
    """count, min, max and mean of lead_days; None when there are no records."""
    values = [r.lead_days for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_lead_days(records: Iterable[Supplier], n: int = 5) -> list[Supplier]:
    """The n suppliers with the largest lead_days (ties by id)."""
    return sorted(records, key=lambda r: (-r.lead_days, r.id))[:n]


def validate_all(records: Iterable[Supplier]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Supplier]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: SupplierStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def find_duplicates(records: Iterable[Supplier]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Supplier], after: Iterable[Supplier]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def median_lead_days(records: Iterable[Supplier]) -> float | None:
    """The median lead_days, or None when there are no records."""
    values = sorted(r.lead_days for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_lead_days(records: Iterable[Supplier], edges: list[float]) -> dict[str, int]:
    """Counts of suppliers per lead_days range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.lead_days)]] += 1
    return counts


def outside_lead_days(records: Iterable[Supplier], low: float, high: float) -> list[Supplier]:
    """Supplier records whose lead_days is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.lead_days < low or r.lead_days > high]


def export_json_lines(records: Iterable[Supplier]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: SupplierStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: SupplierStore, records: Iterable[Supplier], overwrite: bool = False) -> dict[str, int]:
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
