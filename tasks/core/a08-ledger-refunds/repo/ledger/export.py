"""CSV export with signed amounts."""

import csv
import io

from .entries import Entry
from .money import format_money


def to_csv(entries: list[Entry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["day", "kind", "amount", "memo"])
    for e in entries:
        writer.writerow([e.day.isoformat(), e.kind, format_money(e.signed_cents), e.memo])
    return out.getvalue()
