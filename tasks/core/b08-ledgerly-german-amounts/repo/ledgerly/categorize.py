"""Categories from payee names."""

RULES = (
    ("rewe", "groceries"),
    ("lidl", "groceries"),
    ("tesco", "groceries"),
    ("shell", "fuel"),
    ("aral", "fuel"),
    ("rent", "housing"),
    ("netflix", "subscriptions"),
)


def categorize(payee):
    lowered = payee.lower()
    for needle, category in RULES:
        if needle in lowered:
            return category
    return "uncategorised"
