"""Business rules for parts.

Functions:

- create_part()
- update_part()
- count_by_category()
- group_by_supplier()
- total_unit_price_cents()
- total_stock()
- average_stock()
- unit_price_stats()
- top_by_unit_price()
- stock_stats()
- top_by_stock()
- only_category()
- distinct_suppliers()
- validate_all()
- export_rows()
- import_rows()
- find_duplicates()
- changes_between()
- check_references()
- count_by_supplier()
- share_by_category()
- median_unit_price()
- bucket_unit_price()
- outside_unit_price()
- median_stock()
- bucket_stock()
- outside_stock()
- export_json_lines()
- import_json_lines()
- merge_into()
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable

from fleetops.errors import NotFoundError, ValidationError
from fleetops.models.part import (
    FIELDS,
    Part,
    parse_json_lines,
    parse_row_safe,
    to_json_lines,
    to_row,
)
from fleetops.util import money
from fleetops.store.part_store import PartStore


def create_part(store: PartStore, data: dict, **refs: object) -> Part:
    """Build, validate and store a part; refs are stores to check references in."""
    record = Part.from_dict(data)
    supplier_store = refs.get("suppliers")
    if supplier_store is not None and not supplier_store.has(record.supplier_id):
        raise NotFoundError(f"part {record.id}: no supplier {record.supplier_id}")
    return store.add(record)


def update_part(store: PartStore, record_id: str, **changes: object) -> Part:
    """Change fields of a stored record; the result must still validate."""
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise ValidationError(f"part has no fields {unknown}")
    if "id" in changes:
        raise ValidationError("the id of a part cannot change")
    old = store.remove(record_id)
    data = old.to_dict()
    data.update(changes)
    try:
        new = Part.from_dict(data)
    except ValidationError:
        store.add(old)
        raise
    return store.add(new)


def count_by_category(records: Iterable[Part]) -> dict[str, int]:
    """How many parts have each category, in the order of the choices."""
    counts = Counter(r.category for r in records)
    return {k: counts.get(k, 0) for k in ('engine', 'brakes', 'body', 'electrical')}


def group_by_supplier(records: Iterable[Part]) -> dict[str, list[Part]]:
    """Part records per supplier id, in first-seen order."""
    groups: dict[str, list[Part]] = defaultdict(list)
    for r in records:
        groups[r.supplier_id].append(r)
    return dict(groups)


def total_unit_price_cents(records: Iterable[Part]) -> int:
    """The exact total unit_price in cents."""
    return money.sum_cents(r.unit_price for r in records)


def total_stock(records: Iterable[Part]) -> float:
    return sum(r.stock for r in records)


def average_stock(records: Iterable[Part]) -> float | None:
    """The mean stock, or None when there are no records."""
    data = list(records)
    if not data:
        return None
    return sum(r.stock for r in data) / len(data)


def unit_price_stats(records: Iterable[Part]) -> dict[str, float] | None:
    """count, min, max and mean of unit_price; None when there are no records."""
    values = [r.unit_price for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_unit_price(records: Iterable[Part], n: int = 5) -> list[Part]:
    """The n parts with the largest unit_price (ties by id)."""
    return sorted(records, key=lambda r: (-r.unit_price, r.id))[:n]


def stock_stats(records: Iterable[Part]) -> dict[str, float] | None:
    """count, min, max and mean of stock; None when there are no records."""
    values = [r.stock for r in records]
    if not values:
        return None
    return {
        "count": len(values),
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / len(values),
    }


def top_by_stock(records: Iterable[Part], n: int = 5) -> list[Part]:
    """The n parts with the largest stock (ties by id)."""
    return sorted(records, key=lambda r: (-r.stock, r.id))[:n]


def only_category(records: Iterable[Part], value: str) -> list[Part]:
    if value not in ('engine', 'brakes', 'body', 'electrical'):
        raise ValidationError(f"category must be one of engine, brakes, body, electrical, got {value!r}")
    return [r for r in records if r.category == value]


def distinct_suppliers(records: Iterable[Part]) -> list[str]:
    """The supplier ids the records refer to, sorted, each once."""
    return sorted({r.supplier_id for r in records})


def validate_all(records: Iterable[Part]) -> list[str]:
    """One message per invalid record (an empty list when all are valid)."""
    problems = []
    for r in records:
        try:
            r.validate()
        except ValidationError as exc:
            problems.append(f"{r.id}: {exc}")
    return problems


def export_rows(records: Iterable[Part]) -> list[dict[str, str]]:
    return [to_row(r) for r in records]


def import_rows(store: PartStore, rows: Iterable[dict[str, str]]) -> list[str]:
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


def find_duplicates(records: Iterable[Part]) -> list[list[str]]:
    """Groups of ids whose records are equal in every field but the id (entered twice)."""
    groups: dict[tuple, list[str]] = defaultdict(list)
    for r in records:
        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)
    return [ids for ids in groups.values() if len(ids) > 1]


def changes_between(before: Iterable[Part], after: Iterable[Part]) -> dict[str, list[str]]:
    """Ids added, removed and changed between two versions of the same data, sorted."""
    old = {r.id: r for r in before}
    new = {r.id: r for r in after}
    return {
        "added": sorted(set(new) - set(old)),
        "removed": sorted(set(old) - set(new)),
        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),
    }


def check_references(records: Iterable[Part], **stores: object) -> list[str]:
    """One message per reference to a record the given stores do not hold.

    Stores are passed by kind (suppliers=...); a kind not given is not checked.
    """
    suppliers = stores.get("suppliers")
    problems = []
    for r in records:
        if suppliers is not None and not suppliers.has(r.supplier_id):  # type: ignore[attr-defined]
            problems.append(f"{r.id}: no supplier {r.supplier_id}")
    return problems


def count_by_supplier(records: Iterable[Part]) -> dict[str, int]:
    """How many parts refer to each supplier id, ids sorted."""
    counts = Counter(r.supplier_id for r in records)
    return dict(sorted(counts.items()))


def share_by_category(records: Iterable[Part]) -> dict[str, float]:
    """Percent of parts per category, one decimal (all 0.0 when there are none)."""
    counts = count_by_category(records)
    total = sum(counts.values())
    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}


def median_unit_price(records: Iterable[Part]) -> float | None:
    """The median unit_price, or None when there are no records."""
    values = sorted(r.unit_price for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_unit_price(records: Iterable[Part], edges: list[float]) -> dict[str, int]:
    """Counts of parts per unit_price range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.unit_price)]] += 1
    return counts


def outside_unit_price(records: Iterable[Part], low: float, high: float) -> list[Part]:
    """Part records whose unit_price is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.unit_price < low or r.unit_price > high]


def median_stock(records: Iterable[Part]) -> float | None:
    """The median stock, or None when there are no records."""
    values = sorted(r.stock for r in records)
    if not values:
        return None
    mid = len(values) // 2
    if len(values) % 2:
        return values[mid]
    return (values[mid - 1] + values[mid]) / 2


def bucket_stock(records: Iterable[Part], edges: list[float]) -> dict[str, int]:
    """Counts of parts per stock range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""
    if not edges or list(edges) != sorted(set(edges)):
        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]
    labels.append(f">={edges[-1]}")
    counts = dict.fromkeys(labels, 0)
    for r in records:
        counts[labels[bisect_right(edges, r.stock)]] += 1
    return counts


def outside_stock(records: Iterable[Part], low: float, high: float) -> list[Part]:
    """Part records whose stock is below low or above high, for data checks."""
    if low > high:
        raise ValidationError(f"low ({low}) must not exceed high ({high})")
    return [r for r in records if r.stock < low or r.stock > high]


def export_json_lines(records: Iterable[Part]) -> str:
    """JSON Lines text of the records (see import_json_lines)."""
    return to_json_lines(records)


def import_json_lines(store: PartStore, text: str) -> list[str]:
    """Add every good line to the store; return one message per rejected line."""
    records, problems = parse_json_lines(text)
    for r in records:
        if store.has(r.id):
            problems.append(f"{r.id}: duplicate id")
            continue
        store.add(r)
    return problems


def merge_into(store: PartStore, records: Iterable[Part], overwrite: bool = False) -> dict[str, int]:
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
