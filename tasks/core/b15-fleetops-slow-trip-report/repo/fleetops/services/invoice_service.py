"""Business rules for invoices.

Functions:

- create_invoice()
- update_invoice()
- group_by_customer()
- total_amount_cents()
- amount_stats()
- top_by_amount()
- distinct_customers()
- validate_all()
- export_rows()
- import_rows()
- in_period()
- per_month()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.invoice import FIELDS, Invoice, parse_row_safe, to_row
from fleetops.util import money
from fleetops.util.dates import in_range, month_of
from fleetops.store.invoice_store import InvoiceStore


def create_invoice(store: InvoiceStore, data: dict, **refs: object) -> Invoice:
    """Build, validate and store a invoice; refs are stores to check references in."""
    record = Invoice.from_dict(data)
    customer_store = refs.get("customers")
    if customer_store is not None and not customer_store.has(record.customer_id):
        raise NotFoundError(f"invoice {record.id}: no customer {record.customer_id}")
    return store.add(record)


def update_invoice(store: InvoiceStore, record_id: str, **changes: object) -> Invoice:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"invoice has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a invoice cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Invoice.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_customer(records: Iterable[Invoice]) -> dict[str, list[Invoice]]:
    """Invoice records per customer id, in first-seen order."""
    groups: dict[str, list[Invoice]] = defaultdict(list)
    for r in records:
        groups[r.customer_id].append(r)
    return dict(groups)


def total_amount_cents(records: Iterable[Invoice]) -> int:
    """The exact total amount in cents."""
    return money.sum_cents(r.amount for r in records)


def amount_stats(records: Iterable[Invoice]) -> dict[str, float] | None:
    """count, min, max and mean of amount; None when there are no records."""
    values = [r.amount for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_amount(records: Iterable[Invoice], n: int = 5) -> list[Invoice]:
    """The n invoices with the largest amount (ties by id)."""
    return sorted(records, key=lambda r: (-r.amount, r.id))[:n]


def distinct_customers(records: Iterable[Invoice]) -> list[str]:
    """The customer ids the records refer to, sorted, each once."""
    return sorted({r.customer_id for r in records})


def validate_all(records: Iterable[Invoice]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Invoice]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: InvoiceStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Invoice], start: str | None, end: str | None) -> list[Invoice]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Invoice]) -> dict[str, int]:
    """Number of invoices per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))
