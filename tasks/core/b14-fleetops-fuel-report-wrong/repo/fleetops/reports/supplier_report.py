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


def supplier_stats(records: Iterable[Supplier]) -> Table:
    """Count, min, max, mean and median of each number field of the suppliers."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Supplier statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("lead_days", svc.lead_days_stats(data), svc.median_lead_days(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def supplier_changes(before: Iterable[Supplier], after: Iterable[Supplier]) -> Table:
    """One row per supplier added, removed or changed between two versions of the data."""
    table = Table("Supplier changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def supplier_problems(records: Iterable[Supplier], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Supplier problems", ["id", "problem"])
    data = list(records)
    for r in data:
        for problem in r.problems():
            table.add(r.id, problem)
    for ids in svc.find_duplicates(data):
        for record_id in ids[1:]:
            table.add(record_id, f"same content as {ids[0]}")
    del stores  # no references to check for this kind
    return table
