"""A cart of lines (product, quantity)."""

from dataclasses import dataclass

from tillroll.catalog import CATALOG

# VAT rates per category.
_VAT = {"standard": 0.20, "reduced": 0.05, "zero": 0.0}


def _round_half_up(value):
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)


def _line_vat(net_cents, category):
    return _round_half_up(net_cents * _VAT[category])


@dataclass
class Line:
    sku: str
    quantity: int

    @property
    def product(self):
        return CATALOG[self.sku]

    @property
    def net_cents(self):
        return self.product.net_cents * self.quantity

    @property
    def vat_cents(self):
        return _line_vat(self.net_cents, self.product.vat_category)


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, sku, quantity=1):
        if sku not in CATALOG:
            raise KeyError(f"unknown product {sku!r}")
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        for line in self.lines:
            if line.sku == sku:
                line.quantity += quantity
                return line
        line = Line(sku, quantity)
        self.lines.append(line)
        return line

    def remove(self, sku):
        self.lines = [line for line in self.lines if line.sku != sku]

    def net_cents(self):
        return sum(line.net_cents for line in self.lines)

    def vat_cents(self):
        return sum(line.vat_cents for line in self.lines)

    def total_cents(self):
        return self.net_cents() + self.vat_cents()
