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
