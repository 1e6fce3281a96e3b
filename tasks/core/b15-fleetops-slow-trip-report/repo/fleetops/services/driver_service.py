"""Business rules for drivers.

Functions:

- create_driver()
- update_driver()
- count_by_license_class()
- group_by_depot()
- total_hourly_rate_cents()
- hourly_rate_stats()
- top_by_hourly_rate()
- only_license_class()
- distinct_depots()
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
from fleetops.models.driver import FIELDS, Driver, parse_row_safe, to_row
from fleetops.util import money
from fleetops.util.dates import in_range, month_of
from fleetops.store.driver_store import DriverStore


def create_driver(store: DriverStore, data: dict, **refs: object) -> Driver:
    """Build, validate and store a driver; refs are stores to check references in."""
    record = Driver.from_dict(data)
    depot_store = refs.get("depots")
    if depot_store is not None and not depot_store.has(record.depot_id):
        raise NotFoundError(f"driver {record.id}: no depot {record.depot_id}")
    return store.add(record)


def update_driver(store: DriverStore, record_id: str, **changes: object) -> Driver:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"driver has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a driver cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Driver.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_license_class(records: Iterable[Driver]) -> dict[str, int]:
    """How many drivers have each license_class, in the order of the choices."""
    counts = Counter(r.license_class for r in records)
    return {k: counts.get(k, 0) for k in ('B', 'C', 'CE')}


def group_by_depot(records: Iterable[Driver]) -> dict[str, list[Driver]]:
    """Driver records per depot id, in first-seen order."""
    groups: dict[str, list[Driver]] = defaultdict(list)
    for r in records:
        groups[r.depot_id].append(r)
    return dict(groups)


def total_hourly_rate_cents(records: Iterable[Driver]) -> int:
    """The exact total hourly_rate in cents."""
    return money.sum_cents(r.hourly_rate for r in records)


def hourly_rate_stats(records: Iterable[Driver]) -> dict[str, float] | None:
    """count, min, max and mean of hourly_rate; None when there are no records."""
    values = [r.hourly_rate for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_hourly_rate(records: Iterable[Driver], n: int = 5) -> list[Driver]:
    """The n drivers with the largest hourly_rate (ties by id)."""
    return sorted(records, key=lambda r: (-r.hourly_rate, r.id))[:n]


def only_license_class(records: Iterable[Driver], value: str) -> list[Driver]:
    if value not in ('B', 'C', 'CE'):
        raise ValidationError(f"license_class must be one of B, C, CE, got {value!r}")
    return [r for r in records if r.license_class == value]


def distinct_depots(records: Iterable[Driver]) -> list[str]:
    """The depot ids the records refer to, sorted, each once."""
    return sorted({r.depot_id for r in records})


def validate_all(records: Iterable[Driver]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Driver]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: DriverStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Driver], start: str | None, end: str | None) -> list[Driver]:
    return [r for r in records if in_range(r.hired, start, end)]


def per_month(records: Iterable[Driver]) -> dict[str, int]:
    """Number of drivers per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.hired) for r in records)
    return dict(sorted(counts.items()))
