"""Splitting an amount of cents into equal shares."""


def split_cents(total_cents, people):
    """Shares that differ by at most one cent and add up to total_cents exactly.

    The first people in the list pay the leftover cents.
    """
    if people < 1:
        raise ValueError("people must be at least 1")
    base, extra = divmod(total_cents, people)
    return [base + 1 if i <= extra else base for i in range(people)]
