"""Business rules for tolls.

Functions:

- create_toll()
- update_toll()
- group_by_trip()
- total_amount_cents()
- amount_stats()
- top_by_amount()
- distinct_trips()
- validate_all()
- export_rows()
- import_rows()
- in_period()
- per_month()
- find_duplicates()
- changes_between()
- check_references()
- count_by_trip()
- median_amount()
- bucket_amount()
- outside_amount()
- first_and_last()
- busiest_month()
- days_since_previous()
- monthly_amount_cents()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.toll import (
    FIELDS,
    Toll,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util import money
from fleetops.util.dates import days_between, in_range, month_of
from fleetops.store.toll_store import TollStore


def create_toll(store: TollStore, data: dict, **refs: object) -> Toll:
    """Build, validate and store a toll; refs are stores to check references in."""
    record = Toll.from_dict(data)
    trip_store = refs.get("trips")
    if trip_store is not None and not trip_store.has(record.trip_id):
        raise NotFoundError(f"toll {record.id}: no trip {record.trip_id}")
    return store.add(record)


def update_toll(store: TollStore, record_id: str, **changes: object) -> Toll:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"toll has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a toll cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Toll.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def group_by_trip(records: Iterable[Toll]) -> dict[str, list[Toll]]:
    """Toll records per trip id, in first-seen order."""
    groups: dict[str, list[Toll]] = defaultdict(list)
    for r in records:
        groups[r.trip_id].append(r)
    return dict(groups)


def total_amount_cents(records: Iterable[Toll]) -> int:
    """The exact total amount in cents."""
    return money.sum_cents(r.amount for r in records)


def amount_stats(records: Iterable[Toll]) -> dict[str, float] | None:
    """count, min, max and mean of amount; None when there are no records."""
    values = [r.amount for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_amount(records: Iterable[Toll], n: int = 5) -> list[Toll]:
    """The n tolls with the largest amount (ties by id)."""
    return sorted(records, key=lambda r: (-r.amount, r.id))[:n]


def distinct_trips(records: Iterable[Toll]) -> list[str]:
    """The trip ids the records refer to, sorted, each once."""
    return sorted({r.trip_id for r in records})


def validate_all(records: Iterable[Toll]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Toll]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: TollStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def in_period(records: Iterable[Toll], start: str | None, end: str | None) -> list[Toll]:
    return [r for r in records if in_range(r.day, start, end)]


def per_month(records: Iterable[Toll]) -> dict[str, int]:
    """Number of tolls per month (YYYY-MM), months in order."""
    counts = Counter(month_of(r.day) for r in records)
    return dict(sorted(counts.items()))


def find_duplicates(records: Iterable[Toll]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Toll], after: Iterable[Toll]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Toll], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (trips=...); a kind not given is not checked.
    """
    trips = stores.get("trips")
    problems = []
    for r in records:
        if trips is not None and not trips.has(r.trip_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no trip {r.trip_id}")
    return problems


def count_by_trip(records: Iterable[Toll]) -> dict[str, int]:
    """How many tolls refer to each trip id, ids sorted."""
    counts = Counter(r.trip_id for r in records)
    return dict(sorted(counts.items()))


def median_amount(records: Iterable[Toll]) -> float | None:
    """The median amount, or None when there are no records."""
    values = sorted(r.amount for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_amount(records: Iterable[Toll], edges: list[float]) -> dict[str, int]:
    """Counts of tolls per amount range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.amount)]] += 1
    return counts


def outside_amount(records: Iterable[Toll], low: float, high: float) -> list[Toll]:
    """Toll records whose amount is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.amount < low or r.amount > high]


def first_and_last(records: Iterable[Toll]) -> tuple[str, str] | None:
    """The earliest and latest day, or None when there are no records."""
    days = [r.day for r in records]
    if not days:
        return None
    return min(days), max(days)


def busiest_month(records: Iterable[Toll]) -> str | None:
    """The month (YYYY-MM) with the most tolls; the earliest one on a tie."""
    months = per_month(records)
    if not months:
        return None
    return min(months, key=lambda m: (-months[m], m))


def days_since_previous(records: Iterable[Toll]) -> dict[str, int]:
    """Per record id, days since the toll before it (day order; the first is left out)."""
    ordered = sorted(records, key=lambda r: r.sort_key())
    gaps = {}
    for before, after in zip(ordered, ordered[1:]):
        gaps[after.id] = days_between(before.day, after.day)
    return gaps


def monthly_amount_cents(records: Iterable[Toll]) -> dict[str, int]:
    """Total amount in cents per month (YYYY-MM), months in order."""
    amounts: dict[str, list[float]] = defaultdict(list)
    for r in records:
        amounts[month_of(r.day)].append(r.amount)
    return {m: money.sum_cents(amounts[m]) for m in sorted(amounts)}


def export_json_lines(records: Iterable[Toll]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: TollStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: TollStore, records: Iterable[Toll], overwrite: bool = False) -> dict[str, int]:
    """Add new records; replace stored ones with the same id only when overwrite is set.

    Returns how many were added, replaced and skipped (same id, not overwritten).
    """
    counts = {"added": 0, "replaced": 0, "skipped": 0}
    for r in records:
        if not store.has(r.id):
            store.add(r)
            counts["added"] += 1
        elif overwrite:
            store.upsert(r)
            counts["replaced"] += 1
        else:
            counts["skipped"] += 1
    return counts
