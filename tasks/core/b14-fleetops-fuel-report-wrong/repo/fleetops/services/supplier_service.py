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
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.supplier import FIELDS, Supplier, parse_row_safe, to_row
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
