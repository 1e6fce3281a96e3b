"""The summary table of invoices."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.invoice import Invoice
from fleetops.reports.base import Table
from fleetops.services import invoice_service as svc
from fleetops.store.invoice_store import InvoiceStore
from fleetops.util.money import format_money


def invoice_summary(store: InvoiceStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Invoice summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("invoices", len(records))
    table.add("total amount", format_money(svc.total_amount_cents(records)))
    return table


def invoice_detail(records: Iterable[Invoice], limit: int | None = None) -> Table:
    """Every field of each invoice, one row per record (at most limit rows)."""
    table = Table("Invoice records", ["id", "customer_id", "day", "amount", "paid"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.customer_id, r.day, r.amount, r.paid)
    return table


def invoice_by_month(records: Iterable[Invoice]) -> Table:
    table = Table("Invoice records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def invoice_top(records: Iterable[Invoice], n: int = 5) -> Table:
    """The n invoices with the largest amount."""
    table = Table("Top invoices by amount", ["id", "amount"])
    for r in svc.top_by_amount(records, n):
        table.add(r.id, r.amount)
    return table


def invoice_stats(records: Iterable[Invoice]) -> Table:
    """Count, min, max, mean and median of each number field of the invoices."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Invoice statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("amount", svc.amount_stats(data), svc.median_amount(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def invoice_by_customer(records: Iterable[Invoice]) -> Table:
    """How many invoices each customer has."""
    table = Table("Invoice records per customer", ["customer", "count"], align={"count": "right"})
    for customer_id, count in svc.count_by_customer(records).items():
        table.add(customer_id, count)
    return table


def invoice_changes(before: Iterable[Invoice], after: Iterable[Invoice]) -> Table:
    """One row per invoice added, removed or changed between two versions of the data."""
    table = Table("Invoice changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def invoice_problems(records: Iterable[Invoice], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Invoice problems", ["id", "problem"])
    data = list(records)
    for r in data:
        for problem in r.problems():
            table.add(r.id, problem)
    for ids in svc.find_duplicates(data):
        for record_id in ids[1:]:
            table.add(record_id, f"same content as {ids[0]}")
    for message in svc.check_references(data, **stores):
        record_id, _, problem = message.partition(": ")
        table.add(record_id, problem)
    return table
