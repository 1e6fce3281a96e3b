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
