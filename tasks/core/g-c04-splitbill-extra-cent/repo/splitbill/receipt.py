"""A printable receipt for a shared bill."""

from splitbill.money import format_cents
from splitbill.share import split_cents
from splitbill.tip import add_tip


def receipt(items, people, percent=0):
    """Lines of a receipt: items, subtotal, tip, total, and what each person pays."""
    subtotal = sum(cents for _, cents in items)
    total = add_tip(subtotal, percent)
    width = max([len(name) for name, _ in items] + [len(p) for p in people] + [8])
    lines = [f"{name:<{width}} {format_cents(cents):>12}" for name, cents in items]
    lines.append(f"{'subtotal':<{width}} {format_cents(subtotal):>12}")
    if percent:
        lines.append(f"{'tip ' + str(percent) + '%':<{width}} {format_cents(total - subtotal):>12}")
    lines.append(f"{'total':<{width}} {format_cents(total):>12}")
    for person, share in zip(people, split_cents(total, len(people))):
        lines.append(f"{person:<{width}} {format_cents(share):>12}")
    return lines
