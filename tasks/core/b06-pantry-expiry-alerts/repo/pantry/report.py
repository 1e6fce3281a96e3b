"""The morning report (docs/report.md)."""

from pantry.alerts import expired, expiring_within
from pantry.util.dates import days_until
from pantry.util.text import item_line


def _section(title, items, today):
    lines = [title]
    for item in sorted(items, key=lambda i: i.name):
        lines.append("  " + item_line(item, days_until(today, item.expires)))
    if len(lines) == 1:
        lines.append("  (none)")
    return lines


def morning_report(inv, today, days=3):
    lines = _section("EXPIRED", expired(inv, today), today)
    lines += _section("EXPIRING", expiring_within(inv, today, days), today)
    return "\n".join(lines)
