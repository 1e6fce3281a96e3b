"""CSV import and export of Product records."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from ..core.errors import ImportProblem
from ..models.product import Product

COLUMNS = ['id', 'name', 'sku', 'unit_price', 'weight_g', 'category', 'discontinued', 'status', 'tags']


def to_csv(records: Iterable[Product]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        row = record.to_dict()
        row["tags"] = ";".join(row["tags"])
        writer.writerow(row)
    return out.getvalue()


def from_csv(text: str) -> list[Product]:
    """Parse rows; a bad row raises ImportProblem naming its line number."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ImportProblem(f"product CSV lacks column(s) {', '.join(missing)}")
    records = []
    for line, row in enumerate(reader, start=2):
        row = dict(row)
        row["tags"] = [t for t in row.get("tags", "").split(";") if t]
        try:
            records.append(Product.from_dict(row))
        except (ValueError, KeyError) as exc:
            raise ImportProblem(f"product CSV line {line}: {exc}") from exc
    return records


def to_json(records: Iterable[Product]) -> str:
    """A JSON array of records, keys sorted, so exports diff cleanly."""
    return json.dumps([r.to_dict() for r in records], sort_keys=True, indent=2)


def from_json(text: str) -> list[Product]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"product JSON: {exc}") from exc
    if not isinstance(data, list):
        raise ImportProblem("product JSON must be a list of objects")
    records = []
    for number, item in enumerate(data, start=1):
        try:
            records.append(Product.from_dict(item))
        except (ValueError, KeyError, TypeError) as exc:
            raise ImportProblem(f"product JSON item {number}: {exc}") from exc
    return records
