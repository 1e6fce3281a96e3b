"""The summary table of inspections."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.inspection import Inspection
from fleetops.reports.base import Table
from fleetops.services import inspection_service as svc
from fleetops.store.inspection_store import InspectionStore


def inspection_summary(store: InspectionStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Inspection summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("inspections", len(records))
    for choice, count in svc.count_by_result(records).items():
        table.add(f"result={choice}", count)
    return table


def inspection_detail(records: Iterable[Inspection], limit: int | None = None) -> Table:
    """Every field of each inspection, one row per record (at most limit rows)."""
    table = Table("Inspection records", ["id", "vehicle_id", "day", "result", "inspector"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.vehicle_id, r.day, r.result, r.inspector)
    return table


def inspection_by_month(records: Iterable[Inspection]) -> Table:
    table = Table("Inspection records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table
