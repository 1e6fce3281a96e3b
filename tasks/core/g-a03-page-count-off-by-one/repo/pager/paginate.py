"""Split a result list into numbered pages (numbered from 1)."""


def page_count(total: int, per_page: int) -> int:
    """How many pages `total` items fill; an empty result still has one (empty) page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    if total < 0:
        raise ValueError("total cannot be negative")
    return max(1, total // per_page)


def page_items(items: list, page: int, per_page: int) -> list:
    """The items on `page`; raises for a page past the last one."""
    pages = page_count(len(items), per_page)
    if not 1 <= page <= pages:
        raise IndexError(f"page {page} out of range 1..{pages}")
    start = (page - 1) * per_page
    return items[start:start + per_page]


def page_window(current: int, pages: int, width: int = 5) -> list[int]:
    """The page numbers to show around the current page in a pager widget."""
    half = width // 2
    first = max(1, min(current - half, pages - width + 1))
    last = min(pages, first + width - 1)
    return list(range(first, last + 1))
