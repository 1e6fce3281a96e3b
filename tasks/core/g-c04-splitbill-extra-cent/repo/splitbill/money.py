"""Amounts as text at the edges: parsing what people type and formatting for receipts."""


def parse_amount(text):
    """Cents in an amount such as '12', '12.5', '12.50' or '-3.05'.

    More than two decimals is an error rather than a silent rounding.
    """
    cleaned = text.strip().replace(",", "")
    sign = -1 if cleaned.startswith("-") else 1
    cleaned = cleaned.lstrip("+-")
    whole, _, fraction = cleaned.partition(".")
    if not whole.isdigit() or (fraction and not fraction.isdigit()):
        raise ValueError(f"not an amount: {text!r}")
    if len(fraction) > 2:
        raise ValueError(f"more than two decimals in {text!r}")
    return sign * (int(whole) * 100 + int(fraction.ljust(2, "0") or 0))


def format_cents(cents, symbol="$"):
    """'$1,234.50' for 123450; negative amounts as '-$3.05'."""
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{symbol}{whole:,}.{rest:02d}"
