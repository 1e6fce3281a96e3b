"""Business rules for fuel_logs.

Functions:

- create_fuel_log()
- update_fuel_log()
- group_by_vehicle()
- total_liters()
- average_liters()
- total_price_per_liter_cents()
- total_distance()
- average_distance()
- liters_stats()
- top_by_liters()
- price_per_liter_stats()
- top_by_price_per_liter()
- distance_stats()
- top_by_distance()
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

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.fuel_log import FIELDS, FuelLog, parse_row_safe, to_row
from fleetops.store.vehicle_store import VehicleStore
from fleetops.util import money, units
from fleetops.util.dates import in_range, month_of
from fleetops.store.fuel_log_store import FuelLogStore


def create_fuel_log(store: FuelLogStore, data: dict, **refs: object) -> FuelLog:
    """Build, validate and store a fuel_log; refs are stores to check references in."""
    record = FuelLog.from_dict(data)
    vehicle_store = refs.get("vehicles")
    if vehicle_store is not None and not vehicle_store.has(record.vehicle_id):
        raise NotFoundError(f"fuel_log {record.id}: no vehicle {record.vehicle_id}")
    return store.add(record)


def update_fuel_log(store: FuelLogStore, record_id: str, **changes: object) -> FuelLog:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"fuel_log has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a fuel_log cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = FuelLog.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_vehicle(records: Iterable[FuelLog]) -> dict[str, list[FuelLog]]:
    """FuelLog records per vehicle id, in first-seen order."""
    groups: dict[str, list[FuelLog]] = defaultdict(list)
    for r in records:
        groups[r.vehicle_id].append(r)
    return dict(groups)


def total_liters(records: Iterable[FuelLog]) -> float:
    return sum(r.liters for r in records)


def average_liters(records: Iterable[FuelLog]) -> float | None:
    """The mean liters, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.liters for r in data) / len(data)


def total_price_per_liter_cents(records: Iterable[FuelLog]) -> int:
    """The exact total price_per_liter in cents."""
    return money.sum_cents(r.price_per_liter for r in records)


def total_distance(records: Iterable[FuelLog]) -> float:
    return sum(r.distance for r in records)


def average_distance(records: Iterable[FuelLog]) -> float | None:
    """The mean distance, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.distance for r in data) / len(data)


def liters_stats(records: Iterable[FuelLog]) -> dict[str, float] | None:
    """count, min, max and mean of liters; None when there are no records."""
    values = [r.liters for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_liters(records: Iterable[FuelLog], n: int = 5) -> list[FuelLog]:
    """The n fuel_logs with the largest liters (ties by id)."""
    return sorted(records, key=lambda r: (-r.liters, r.id))[:n]


def price_per_liter_stats(records: Iterable[FuelLog]) -> dict[str, float] | None:
    """count, min, max and mean of price_per_liter; None when there are no records."""
    values = [r.price_per_liter for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_price_per_liter(records: Iterable[FuelLog], n: int = 5) -> list[FuelLog]:
    """The n fuel_logs with the largest price_per_liter (ties by id)."""
    return sorted(records, key=lambda r: (-r.price_per_liter, r.id))[:n]


def distance_stats(records: Iterable[FuelLog]) -> dict[str, float] | None:
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


def top_by_distance(records: Iterable[FuelLog], n: int = 5) -> list[FuelLog]:
    """The n fuel_logs with the largest distance (ties by id)."""
    return sorted(records, key=lambda r: (-r.distance, r.id))[:n]


def distinct_vehicles(records: Iterable[FuelLog]) -> list[str]:
    """The vehicle ids the records refer to, sorted, each once."""
    return sorted({r.vehicle_id for r in records})


def validate_all(records: Iterable[FuelLog]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[FuelLog]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: FuelLogStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[FuelLog], start: str | None, end: str | None) -> list[FuelLog]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[FuelLog]) -> dict[str, int]:
    """Number of fuel_logs per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))


def fill_cost_cents(log: FuelLog) -> int:
    """What one refuelling cost, in cents."""
    return money.to_cents(log.liters * log.price_per_liter)


def cost_by_depot(logs: Iterable[FuelLog], vehicles: VehicleStore) -> dict[str, int]:
    """Fuel cost in cents per depot id (through each vehicle's home depot), depots sorted."""
    totals: dict[str, int] = defaultdict(int)
    for log in logs:
        depot = vehicles.get(log.vehicle_id).depot_id
        totals[depot] += fill_cost_cents(log)
    return dict(sorted(totals.items()))


def km_per_liter(logs: Iterable[FuelLog], vehicles: VehicleStore) -> dict[str, float]:
    """Kilometres per litre per vehicle id, over the given logs (vehicles sorted).

    A log's distance is in its vehicle's odometer unit; it is converted to kilometres
    before dividing, so vehicles with miles odometers compare fairly.
    """
    km: dict[str, float] = defaultdict(float)
    liters: dict[str, float] = defaultdict(float)
    for log in logs:
        unit = vehicles.get(log.vehicle_id).odometer_unit
        km[log.vehicle_id] += (
            units.km_to_miles(log.distance) if unit == "mi" else log.distance
        )
        liters[log.vehicle_id] += log.liters
    return {vid: km[vid] / liters[vid] for vid in sorted(km) if liters[vid] > 0}
