"""Business rules for trips.

Functions:

- create_trip()
- update_trip()
- count_by_status()
- group_by_route()
- group_by_driver()
- group_by_vehicle()
- total_distance()
- average_distance()
- distance_stats()
- top_by_distance()
- only_status()
- distinct_routes()
- distinct_drivers()
- distinct_vehicles()
- validate_all()
- export_rows()
- import_rows()
- in_period()
- per_month()
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.trip import FIELDS, Trip, parse_row_safe, to_row
from fleetops.util.dates import in_range, month_of
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore
from fleetops.util import units


def create_trip(store: TripStore, data: dict, **refs: object) -> Trip:
    """Build, validate and store a trip; refs are stores to check references in."""
    record = Trip.from_dict(data)
    route_store = refs.get("routes")
    if route_store is not None and not route_store.has(record.route_id):
        raise NotFoundError(f"trip {record.id}: no route {record.route_id}")
    driver_store = refs.get("drivers")
    if driver_store is not None and not driver_store.has(record.driver_id):
        raise NotFoundError(f"trip {record.id}: no driver {record.driver_id}")
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"trip {record.id}: no vehicle {record.vehicle_id}")
    return store.add(record)


def update_trip(store: TripStore, record_id: str, **changes: object) -> Trip:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"trip has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a trip cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Trip.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_status(records: Iterable[Trip]) -> dict[str, int]:
    """How many trips have each status, in the order of the choices."""
    counts = Counter(r.status for r in records)
    return {k: counts.get(k, 0) for k in ('planned', 'done', 'cancelled')}


def group_by_route(records: Iterable[Trip]) -> dict[str, list[Trip]]:
    """Trip records per route id, in first-seen order."""
    groups: dict[str, list[Trip]] = defaultdict(list)
    for r in records:
        groups[r.route_id].append(r)
    return dict(groups)


def group_by_driver(records: Iterable[Trip]) -> dict[str, list[Trip]]:
    """Trip records per driver id, in first-seen order."""
    groups: dict[str, list[Trip]] = defaultdict(list)
    for r in records:
        groups[r.driver_id].append(r)
    return dict(groups)


def group_by_vehicle(records: Iterable[Trip]) -> dict[str, list[Trip]]:
    """Trip records per vehicle id, in first-seen order."""
    groups: dict[str, list[Trip]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def total_distance(records: Iterable[Trip]) -> float:
    return sum(r.distance for r in records)


def average_distance(records: Iterable[Trip]) -> float | None:
    """The mean distance, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.distance for r in data) / len(data)


def distance_stats(records: Iterable[Trip]) -> dict[str, float] | None:
    """count, min, max and mean of distance; None when there are no records."""
    values = [r.distance for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_distance(records: Iterable[Trip], n: int = 5) -> list[Trip]:
    """The n trips with the largest distance (ties by id)."""
    return sorted(records, key=lambda r: (-r.distance, r.id))[:n]


def only_status(records: Iterable[Trip], value: str) -> list[Trip]:
    if value not in ('planned', 'done', 'cancelled'):
        raise ValidationError(f"status must be one of planned, done, cancelled, got {value!r}")
    return [r for r in records if r.status == value]


def distinct_routes(records: Iterable[Trip]) -> list[str]:
    """The route ids the records refer to, sorted, each once."""
    return sorted({r.route_id for r in records})


def distinct_drivers(records: Iterable[Trip]) -> list[str]:
    """The driver ids the records refer to, sorted, each once."""
    return sorted({r.driver_id for r in records})


def distinct_vehicles(records: Iterable[Trip]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def validate_all(records: Iterable[Trip]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Trip]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: TripStore, rows: Iterable[dict[str, str]]) -> list[str]:
    """Add every good row to the store; return one message per rejected row."""
    problems = []
    for n, row in enumerate(rows, start=1):
        record, problem = parse_row_safe(row)
        if record is None:
            problems.append(f"row {n}: {problem}")
            continue
        if store.has(record.id):
            problems.append(f"row {n}: duplicate id {record.id}")
            continue
        store.add(record)
    return problems


def in_period(records: Iterable[Trip], start: str | None, end: str | None) -> list[Trip]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Trip]) -> dict[str, int]:
    """Number of trips per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class DriverStats:
    driver_id: str
    trips: int
    km: float
    routes: tuple[str, ...]  # distinct route ids, in the order first driven


def driver_stats(
    trips: TripStore, drivers: Iterable[Driver], vehicles: VehicleStore
) -> list[DriverStats]:
    """Per driver (in the order given): finished trips, kilometres and distinct routes."""
    stats = []
    for driver in drivers:
        mine = trips.find(driver_id=driver.id, status="done")
        routes: list[str] = []
        for trip in mine:
            if trip.route_id not in routes:
                routes.append(trip.route_id)
        km = 0.0
        for trip in mine:
            vehicle = vehicles.find(id=trip.vehicle_id)[0]
            km += units.to_km(trip.distance, vehicle.odometer_unit)
        stats.append(DriverStats(driver.id, len(mine), round(km, 3), tuple(routes)))
    return stats
