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


def inspection_by_vehicle(records: Iterable[Inspection]) -> Table:
    """How many inspections each vehicle has."""
    table = Table("Inspection records per vehicle", ["vehicle", "count"], align={"count": "right"})
    for vehicle_id, count in svc.count_by_vehicle(records).items():
        table.add(vehicle_id, count)
    return table


def inspection_changes(before: Iterable[Inspection], after: Iterable[Inspection]) -> Table:
    """One row per inspection added, removed or changed between two versions of the data."""
    table = Table("Inspection changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def inspection_problems(records: Iterable[Inspection], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Inspection problems", ["id", "problem"])
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
