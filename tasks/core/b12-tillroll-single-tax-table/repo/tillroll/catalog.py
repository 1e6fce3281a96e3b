"""The products we sell."""

from dataclasses import dataclass

CATEGORIES = ("standard", "reduced", "zero")


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    net_cents: int
    vat_category: str

    def __post_init__(self):
        if self.vat_category not in CATEGORIES:
            raise ValueError(f"{self.sku}: unknown VAT category {self.vat_category!r}")
        if self.net_cents < 0:
            raise ValueError(f"{self.sku}: price must not be negative")


CATALOG = {
    p.sku: p
    for p in (
        Product("ESP", "Espresso", 210, "standard"),
        Product("CAP", "Cappuccino", 300, "standard"),
        Product("CRO", "Croissant", 185, "reduced"),
        Product("SAN", "Sandwich", 455, "reduced"),
        Product("NEWS", "Newspaper", 250, "zero"),
    )
}
