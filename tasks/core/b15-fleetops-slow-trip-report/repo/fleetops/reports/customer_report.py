"""The summary table of customers."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.customer import Customer
from fleetops.reports.base import Table
from fleetops.services import customer_service as svc
from fleetops.store.customer_store import CustomerStore
from fleetops.util.money import format_money


def customer_summary(store: CustomerStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Customer summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("customers", len(records))
    for choice, count in svc.count_by_segment(records).items():
        table.add(f"segment={choice}", count)
    table.add("total credit_limit", format_money(svc.total_credit_limit_cents(records)))
    return table


def customer_detail(records: Iterable[Customer], limit: int | None = None) -> Table:
    """Every field of each customer, one row per record (at most limit rows)."""
    table = Table("Customer records", ["id", "name", "segment", "city", "credit_limit"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.name, r.segment, r.city, r.credit_limit)
    return table


def customer_top(records: Iterable[Customer], n: int = 5) -> Table:
    """The n customers with the largest credit_limit."""
    table = Table("Top customers by credit_limit", ["id", "credit_limit"])
    for r in svc.top_by_credit_limit(records, n):
        table.add(r.id, r.credit_limit)
    return table


def customer_stats(records: Iterable[Customer]) -> Table:
    """Count, min, max, mean and median of each number field of the customers."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Customer statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("credit_limit", svc.credit_limit_stats(data), svc.median_credit_limit(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def customer_changes(before: Iterable[Customer], after: Iterable[Customer]) -> Table:
    """One row per customer added, removed or changed between two versions of the data."""
    table = Table("Customer changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def customer_problems(records: Iterable[Customer], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Customer problems", ["id", "problem"])
    data = list(records)
    for r in data:
        for problem in r.problems():
            table.add(r.id, problem)
    for ids in svc.find_duplicates(data):
        for record_id in ids[1:]:
            table.add(record_id, f"same content as {ids[0]}")
    del stores  # no references to check for this kind
    return table
