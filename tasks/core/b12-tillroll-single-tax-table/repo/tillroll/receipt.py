"""The printed receipt."""

from collections import defaultdict

from tillroll.money import fmt

# VAT rates per category (printed on the receipt as percentages).
_VAT = {"standard": 0.20, "reduced": 0.05, "zero": 0.0}


def _round_half_up(value):
    return int(value + 0.5) if value >= 0 else -int(-value + 0.5)


def vat_breakdown(cart):
    """{category: (rate, net_cents, vat_cents)} for the categories in the cart."""
    net = defaultdict(int)
    vat = defaultdict(int)
    for line in cart.lines:
        category = line.product.vat_category
        net[category] += line.net_cents
        vat[category] += _round_half_up(line.net_cents * _VAT[category])
    return {c: (_VAT[c], net[c], vat[c]) for c in sorted(net)}


def render_receipt(cart):
    rows = []
    for line in cart.lines:
        rows.append(f"{line.quantity} x {line.product.name:<12} {fmt(line.net_cents):>8}")
    rows.append("-" * 28)
    for category, (rate, net, vat) in vat_breakdown(cart).items():
        rows.append(f"VAT {category} {rate:.0%} on {fmt(net)}: {fmt(vat)}")
    total = sum(v[1] + v[2] for v in vat_breakdown(cart).values())
    rows.append(f"TOTAL {fmt(total):>22}")
    return "\n".join(rows)
