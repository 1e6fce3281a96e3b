"""Reading a statement CSV (columns: date, payee, amount) into entries."""

import csv

from ledgerly.amounts import parse_amount
from ledgerly.categorize import categorize
from ledgerly.dates import parse_day
from ledgerly.locales import get_locale
from ledgerly.models import Entry


def import_statement(path, locale="en"):
    loc = get_locale(locale)
    entries = []
    with open(path, newline="", encoding="utf-8") as f:
        for n, row in enumerate(csv.DictReader(f, delimiter=loc.delimiter), start=2):
            try:
                entries.append(Entry(
                    day=parse_day(row["date"], loc),
                    payee=row["payee"].strip(),
                    amount=parse_amount(row["amount"], loc),
                    category=categorize(row["payee"]),
                ))
            except (KeyError, ValueError) as exc:
                raise ValueError(f"{path}:{n}: {exc}") from None
    return entries
