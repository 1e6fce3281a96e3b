"""Refunds for returned lines."""

# VAT rates per category; refunds pay back the VAT that was charged.
_VAT = {"standard": 0.20, "reduced": 0.05, "zero": 0.0}


def _round_half_up(value):
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)


def refund_line(line, quantity=None):
    """Gross cents to pay back for `quantity` units of a cart line (default: all)."""
    quantity = line.quantity if quantity is None else quantity
    if not 1 <= quantity <= line.quantity:
        raise ValueError(f"can refund 1 to {line.quantity} units, not {quantity}")
    net = line.product.net_cents * quantity
    return net + _round_half_up(net * _VAT[line.product.vat_category])
