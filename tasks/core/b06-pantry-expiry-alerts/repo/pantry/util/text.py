"""Formatting helpers for the report."""


def when(days_left):
    """'(today)', '(in 1 day)', '(in 3 days)', '(2 days ago)'."""
    if days_left == 0:
        return "(today)"
    if days_left > 0:
        return f"(in {days_left} day{'s' if days_left != 1 else ''})"
    ago = -days_left
    return f"({ago} day{'s' if ago != 1 else ''} ago)"


def item_line(item, days_left):
    return (
        f"{item.name:<12} {item.quantity:>3}  {item.location:<8} "
        f"expires {item.expires} {when(days_left)}"
    )
