"""Money as integer cents, and its text form."""


def parse_money(text: str) -> int:
    """'12.34' or '$12.34' -> 1234."""
    text = text.strip().lstrip("$")
    units, _, frac = text.partition(".")
    frac = (frac + "00")[:2]
    return int(units) * 100 + int(frac)


def format_money(cents: int) -> str:
    """1234 -> '$12.34'; -500 -> '-$5.00'."""
    return f"${cents // 100}.{cents % 100:02d}"
