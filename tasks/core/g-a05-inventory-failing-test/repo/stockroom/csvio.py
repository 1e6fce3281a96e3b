"""Loading stock counts from the CSV files the tills export.

Expected header: ``sku,name,unit_price,quantity``. Every problem is reported with its line
number so the person doing the stock take can fix the sheet.
"""

import csv
import io

from .inventory import Inventory
from .item import Item
from .sku import BadSku, normalize_sku

HEADER = ["sku", "name", "unit_price", "quantity"]


class StockFileError(ValueError):
    """A row of a stock CSV that cannot be loaded."""


def parse_rows(text: str) -> list[Item]:
    """The items of a stock CSV, in file order (duplicate skus are kept as separate rows)."""
    reader = csv.reader(io.StringIO(text))
    rows = list(reader)
    if not rows or [c.strip().lower() for c in rows[0]] != HEADER:
        raise StockFileError(f"line 1: header must be {','.join(HEADER)}")
    items = []
    for lineno, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(HEADER):
            raise StockFileError(f"line {lineno}: expected 4 columns, got {len(row)}")
        try:
            sku = normalize_sku(row[0])
            price = float(row[2])
            quantity = int(row[3])
            items.append(Item(sku, row[1].strip(), price, quantity))
        except (BadSku, ValueError) as exc:
            raise StockFileError(f"line {lineno}: {exc}") from None
    return items


def load_inventory(text: str, inventory: Inventory | None = None) -> Inventory:
    """Add every row of a stock CSV to an inventory (a new one by default)."""
    inventory = inventory if inventory is not None else Inventory()
    for item in parse_rows(text):
        inventory.add(item.sku, item.name, item.unit_price, item.quantity)
    return inventory


def dump_items(items: list[Item]) -> str:
    """Items back to CSV text with the standard header."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    for item in items:
        writer.writerow([item.sku, item.name, f"{item.unit_price:.2f}", item.quantity])
    return buffer.getvalue()
