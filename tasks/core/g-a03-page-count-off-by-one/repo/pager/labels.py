"""Human labels for the pager widget."""

from .paginate import page_count


def page_label(page: int, total: int, per_page: int) -> str:
    return f"page {page} of {page_count(total, per_page)}"


def range_label(page: int, per_page: int, total: int) -> str:
    """'showing 21-40 of 45' for the footer of a list view; 'no results' when empty.

    The last page shows only the items that exist: page 3 of 45 at 20 per page is '41-45'.
    """
    if page < 1 or per_page < 1:
        raise ValueError("page and per_page must be at least 1")
    if total == 0:
        return "no results"
    first = (page - 1) * per_page + 1
    if first > total:
        raise ValueError(f"page {page} is past the last item ({total} items)")
    last = min(total, page * per_page)
    return f"showing {first}-{last} of {total}"
