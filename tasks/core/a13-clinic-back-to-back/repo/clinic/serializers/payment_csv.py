"""CSV import and export of Payment records."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable

from ..core.errors import ImportProblem
from ..models.payment import Payment

COLUMNS = ['id', 'reference', 'invoice_id', 'received_on', 'amount', 'method', 'status', 'tags']


def to_csv(records: Iterable[Payment]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for record in records:
        row = record.to_dict()
        row["tags"] = ";".join(row["tags"])
        writer.writerow(row)
    return out.getvalue()


def from_csv(text: str) -> list[Payment]:
    """Parse rows; a bad row raises ImportProblem naming its line number."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise ImportProblem(f"payment CSV lacks column(s) {', '.join(missing)}")
    records = []
    for line, row in enumerate(reader, start=2):
        row = dict(row)
        row["tags"] = [t for t in row.get("tags", "").split(";") if t]
        try:
            records.append(Payment.from_dict(row))
        except (ValueError, KeyError) as exc:
            raise ImportProblem(f"payment CSV line {line}: {exc}") from exc
    return records


def to_json(records: Iterable[Payment]) -> str:
    """A JSON array of records, keys sorted, so exports diff cleanly."""
    return json.dumps([r.to_dict() for r in records], sort_keys=True, indent=2)


def from_json(text: str) -> list[Payment]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"payment JSON: {exc}") from exc
    if not isinstance(data, list):
        raise ImportProblem("payment JSON must be a list of objects")
    records = []
    for number, item in enumerate(data, start=1):
        try:
            records.append(Payment.from_dict(item))
        except (ValueError, KeyError, TypeError) as exc:
            raise ImportProblem(f"payment JSON item {number}: {exc}") from exc
    return records
