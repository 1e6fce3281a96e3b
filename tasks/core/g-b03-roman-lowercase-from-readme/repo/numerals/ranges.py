"""Page ranges as catalogue records write them: '1-3, 7, 10-12'."""


def parse_ranges(text):
    """'1-3, 7, 10-12' -> [1, 2, 3, 7, 10, 11, 12] (sorted, duplicates removed)."""
    pages = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        first, dash, last = part.partition("-")
        try:
            start = int(first)
            end = int(last) if dash else start
        except ValueError:
            raise ValueError(f"bad page range {part!r}") from None
        if start < 1 or end < start:
            raise ValueError(f"bad page range {part!r}: pages start at 1 and go up")
        pages.update(range(start, end + 1))
    return sorted(pages)


def format_ranges(pages):
    """[1, 2, 3, 7, 10, 11, 12] -> '1-3, 7, 10-12'; input order and duplicates don't matter."""
    ordered = sorted(set(pages))
    parts = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts)


def page_count(text):
    """How many distinct pages a range string covers."""
    return len(parse_ranges(text))
