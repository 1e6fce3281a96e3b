"""Business rules for parts.

Functions:

- create_part()
- update_part()
- count_by_category()
- group_by_supplier()
- total_unit_price_cents()
- total_stock()
- average_stock()
- unit_price_stats()
- top_by_unit_price()
- stock_stats()
- top_by_stock()
- only_category()
- distinct_suppliers()
- validate_all()
- export_rows()
- import_rows()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.part import FIELDS, Part, parse_row_safe, to_row
from fleetops.util import money
from fleetops.store.part_store import PartStore


def create_part(store: PartStore, data: dict, **refs: object) -> Part:
    """Build, validate and store a part; refs are stores to check references in."""
    record = Part.from_dict(data)
    supplier_store = refs.get("suppliers")
    if supplier_store is not None and not supplier_store.has(record.supplier_id):
        raise NotFoundError(f"part {record.id}: no supplier {record.supplier_id}")
    return store.add(record)


def update_part(store: PartStore, record_id: str, **changes: object) -> Part:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"part has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a part cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Part.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_category(records: Iterable[Part]) -> dict[str, int]:
    """How many parts have each category, in the order of the choices."""
    counts = Counter(r.category for r in records)
    return {k: counts.get(k, 0) for k in ('engine', 'brakes', 'body', 'electrical')}


def group_by_supplier(records: Iterable[Part]) -> dict[str, list[Part]]:
    """Part records per supplier id, in first-seen order."""
    groups: dict[str, list[Part]] = defaultdict(list)
    for r in records:
        groups[r.supplier_id].append(r)
    return dict(groups)


def total_unit_price_cents(records: Iterable[Part]) -> int:
    """The exact total unit_price in cents."""
    return money.sum_cents(r.unit_price for r in records)


def total_stock(records: Iterable[Part]) -> float:
    return sum(r.stock for r in records)


def average_stock(records: Iterable[Part]) -> float | None:
    """The mean stock, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.stock for r in data) / len(data)


def unit_price_stats(records: Iterable[Part]) -> dict[str, float] | None:
    """count, min, max and mean of unit_price; None when there are no records."""
    values = [r.unit_price for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_unit_price(records: Iterable[Part], n: int = 5) -> list[Part]:
    """The n parts with the largest unit_price (ties by id)."""
    return sorted(records, key=lambda r: (-r.unit_price, r.id))[:n]


def stock_stats(records: Iterable[Part]) -> dict[str, float] | None:
    """count, min, max and mean of stock; None when there are no records."""
    values = [r.stock for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_stock(records: Iterable[Part], n: int = 5) -> list[Part]:
    """The n parts with the largest stock (ties by id)."""
    return sorted(records, key=lambda r: (-r.stock, r.id))[:n]


def only_category(records: Iterable[Part], value: str) -> list[Part]:
    if value not in ('engine', 'brakes', 'body', 'electrical'):
        raise ValidationError(f"category must be one of engine, brakes, body, electrical, got {value!r}")
    return [r for r in records if r.category == value]


def distinct_suppliers(records: Iterable[Part]) -> list[str]:
    """The supplier ids the records refer to, sorted, each once."""
    return sorted({r.supplier_id for r in records})


def validate_all(records: Iterable[Part]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Part]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: PartStore, rows: Iterable[dict[str, str]]) -> list[str]:
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
