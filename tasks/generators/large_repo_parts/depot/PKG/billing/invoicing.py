"""Build an invoice draft from order lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import ValidationError
from ..core.money import format_cents
from ..models.product import Product
from .pricing import LinePrice, price_line
from .tax import vat_for


@dataclass(frozen=True)
class OrderLine:
    product: Product
    quantity: int


@dataclass(frozen=True)
class InvoiceLine:
    sku: str
    description: str
    quantity: int
    price: LinePrice
    vat: int

    @property
    def net(self) -> int:
        return self.price.net


@dataclass
class InvoiceDraft:
    customer_id: str
    lines: list[InvoiceLine] = field(default_factory=list)

    @property
    def subtotal(self) -> int:
        return sum(line.net for line in self.lines)

    @property
    def vat(self) -> int:
        return sum(line.vat for line in self.lines)

    @property
    def total(self) -> int:
        return self.subtotal + self.vat

    def summary(self) -> str:
        return (f"{len(self.lines)} line(s), net {format_cents(self.subtotal)}, "
                f"VAT {format_cents(self.vat)}, total {format_cents(self.total)}")


def build_invoice(customer_id: str, lines: list[OrderLine],
                  list_discount_pct: int = 0) -> InvoiceDraft:
    """Price every line (volume, then list discount), charge VAT on the discounted amount."""
    if not lines:
        raise ValidationError("an invoice needs at least one line")
    draft = InvoiceDraft(customer_id=customer_id)
    for line in lines:
        if line.product.discontinued:
            raise ValidationError(f"{line.product.sku} is discontinued")
        price = price_line(line.product.unit_price, line.quantity, list_discount_pct)
        vat = vat_for(line.product.category, price.net)
        draft.lines.append(InvoiceLine(line.product.sku, line.product.name, line.quantity,
                                       price, vat))
    return draft
