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
