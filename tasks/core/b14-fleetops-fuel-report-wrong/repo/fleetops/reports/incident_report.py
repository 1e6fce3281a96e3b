"""The summary table of incidents."""

from __future__ import annotations

from collections.abc import Iterable

from fleetops.models.incident import Incident
from fleetops.reports.base import Table
from fleetops.services import incident_service as svc
from fleetops.store.incident_store import IncidentStore
from fleetops.util.money import format_money


def incident_summary(store: IncidentStore) -> Table:
    """One row per fact: record count, counts per choice, money totals."""
    table = Table("Incident summary", ["what", "value"], align={"value": "right"})
    records = store.all()
    table.add("incidents", len(records))
    for choice, count in svc.count_by_severity(records).items():
        table.add(f"severity={choice}", count)
    table.add("total damage", format_money(svc.total_damage_cents(records)))
    return table


def incident_detail(records: Iterable[Incident], limit: int | None = None) -> Table:
    """Every field of each incident, one row per record (at most limit rows)."""
    table = Table("Incident records", ["id", "vehicle_id", "driver_id", "day", "severity", "damage"])
    for n, r in enumerate(records):
        if limit is not None and n >= limit:
            break
        table.add(r.id, r.vehicle_id, r.driver_id, r.day, r.severity, r.damage)
    return table


def incident_by_month(records: Iterable[Incident]) -> Table:
    table = Table("Incident records per month", ["month", "count"])
    for month, count in svc.per_month(records).items():
        table.add(month, count)
    return table


def incident_top(records: Iterable[Incident], n: int = 5) -> Table:
    """The n incidents with the largest damage."""
    table = Table("Top incidents by damage", ["id", "damage"])
    for r in svc.top_by_damage(records, n):
        table.add(r.id, r.damage)
    return table


def incident_stats(records: Iterable[Incident]) -> Table:
    """Count, min, max, mean and median of each number field of the incidents."""
    data = list(records)
    columns = ["field", "count", "min", "max", "mean", "median"]
    table = Table("Incident statistics", columns, align={c: "right" for c in columns[1:]})
    rows = (
        ("damage", svc.damage_stats(data), svc.median_damage(data)),
    )
    for field, stats, median in rows:
        if stats is None:
            continue
        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)
    return table


def incident_by_vehicle(records: Iterable[Incident]) -> Table:
    """How many incidents each vehicle has."""
    table = Table("Incident records per vehicle", ["vehicle", "count"], align={"count": "right"})
    for vehicle_id, count in svc.count_by_vehicle(records).items():
        table.add(vehicle_id, count)
    return table


def incident_by_driver(records: Iterable[Incident]) -> Table:
    """How many incidents each driver has."""
    table = Table("Incident records per driver", ["driver", "count"], align={"count": "right"})
    for driver_id, count in svc.count_by_driver(records).items():
        table.add(driver_id, count)
    return table


def incident_changes(before: Iterable[Incident], after: Iterable[Incident]) -> Table:
    """One row per incident added, removed or changed between two versions of the data."""
    table = Table("Incident changes", ["change", "id"])
    for change, ids in svc.changes_between(before, after).items():
        for record_id in ids:
            table.add(change, record_id)
    return table


def incident_problems(records: Iterable[Incident], **stores: object) -> Table:
    """Field problems, duplicates and (with stores given) dangling references."""
    table = Table("Incident problems", ["id", "problem"])
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
