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
