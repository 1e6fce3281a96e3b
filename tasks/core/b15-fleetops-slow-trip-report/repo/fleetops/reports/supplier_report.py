"""The summary table of suppliers."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.supplier import Supplier
from fleetops.reports.base import Table
from fleetops.services import supplier_service as svc
from fleetops.store.supplier_store import SupplierStore


def supplier_summary(store: SupplierStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Supplier summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("suppliers", len(records))
    return table


def supplier_detail(records: Iterable[Supplier], limit: int | None = None) -> Table:
    """Every field of each supplier, one row per record (at most limit rows)."""
    table = Table("Supplier records", ["id", "name", "country", "lead_days"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.country, r.lead_days)
    return table


def supplier_top(records: Iterable[Supplier], n: int = 5) -> Table:
    """The n suppliers with the largest lead_days."""
    table = Table("Top suppliers by lead_days", ["id", "lead_days"])
    for r in svc.top_by_lead_days(records, n):
        table.add(r.id, r.lead_days)
    return table
