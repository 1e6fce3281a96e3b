"""Grouping entries by category, read from hashtags in the memo.

Staff type memos like ``"2 mugs #kitchen"``; the first hashtag is the category. Entries
without one fall into UNCATEGORISED.
"""

import re
from collections import defaultdict

from .entries import Entry

UNCATEGORISED = "uncategorised"
_TAG = re.compile(r"#([a-z0-9][a-z0-9_-]*)", re.IGNORECASE)


def category(entry: Entry) -> str:
    """The first hashtag of the memo, lowercased; UNCATEGORISED when there is none."""
    match = _TAG.search(entry.memo)
    return match.group(1).lower() if match else UNCATEGORISED


def by_category(entries: list[Entry]) -> dict[str, list[Entry]]:
    """Entries per category, categories in alphabetical order."""
    groups: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        groups[category(entry)].append(entry)
    return dict(sorted(groups.items()))


def sales_by_category(entries: list[Entry]) -> dict[str, int]:
    """Gross sales in cents per category (refunds are not included)."""
    return {name: sum(e.cents for e in items if e.kind == "sale")
            for name, items in by_category(entries).items()}
