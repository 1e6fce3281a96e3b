"""The summary table of stops."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.stop import Stop
from fleetops.reports.base import Table
from fleetops.services import stop_service as svc
from fleetops.store.stop_store import StopStore


def stop_summary(store: StopStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Stop summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("stops", len(records))
    return table


def stop_detail(records: Iterable[Stop], limit: int | None = None) -> Table:
    """Every field of each stop, one row per record (at most limit rows)."""
    table = Table("Stop records", ["id", "route_id", "sequence", "customer_id", "window_minutes"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.route_id, r.sequence, r.customer_id, r.window_minutes)
    return table


def stop_top(records: Iterable[Stop], n: int = 5) -> Table:
    """The n stops with the largest sequence."""
    table = Table("Top stops by sequence", ["id", "sequence"])
    for r in svc.top_by_sequence(records, n):
        table.add(r.id, r.sequence)
    return table
