"""The summary table of parts."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.part import Part
from fleetops.reports.base import Table
from fleetops.services import part_service as svc
from fleetops.store.part_store import PartStore
from fleetops.util.money import format_money


def part_summary(store: PartStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Part summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("parts", len(records))
    for choice, count in svc.count_by_category(records).items():
        table.add(f"category={choice}", count)
    table.add("total unit_price", format_money(svc.total_unit_price_cents(records)))
    return table


def part_detail(records: Iterable[Part], limit: int | None = None) -> Table:
    """Every field of each part, one row per record (at most limit rows)."""
    table = Table("Part records", ["id", "name", "supplier_id", "unit_price", "stock", "category"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.supplier_id, r.unit_price, r.stock, r.category)
    return table


def part_top(records: Iterable[Part], n: int = 5) -> Table:
    """The n parts with the largest unit_price."""
    table = Table("Top parts by unit_price", ["id", "unit_price"])
    for r in svc.top_by_unit_price(records, n):
        table.add(r.id, r.unit_price)
    return table


def part_stats(records: Iterable[Part]) -> Table:
    """Count, min, max, mean and median of each number field of the parts."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Part statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("unit_price", svc.unit_price_stats(data), svc.median_unit_price(data)),
        ("stock", svc.stock_stats(data), svc.median_stock(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def part_by_supplier(records: Iterable[Part]) -> Table:
    """How many parts each supplier has."""
    table = Table("Part records per supplier", ["supplier", "count"], align={"count": "right"})
    for supplier_id, count in svc.count_by_supplier(records).items():
        table.add(supplier_id, count)
    return table


def part_changes(before: Iterable[Part], after: Iterable[Part]) -> Table:
    """One row per part added, removed or changed between two versions of the data."""
    table = Table("Part changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def part_problems(records: Iterable[Part], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Part problems", ["id", "problem"])
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
