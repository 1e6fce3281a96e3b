"""Cell text and padding."""


def to_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_numeric_column(rows: list[dict], column: str) -> bool:
    values = [r.get(column) for r in rows]
    return bool(values) and all(is_number(v) for v in values)


def pad(text: str, width: int, align: str = "left") -> str:
    """Pad text to width."""
    return text.ljust(width)
