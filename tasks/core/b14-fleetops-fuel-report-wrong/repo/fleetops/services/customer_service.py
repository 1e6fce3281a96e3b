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
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.customer import FIELDS, Customer, parse_row_safe, to_row
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
