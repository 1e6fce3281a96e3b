"""Human labels for the pager widget."""

from .paginate import page_count


def page_label(page: int, total: int, per_page: int) -> str:
    return f"page {page} of {page_count(total, per_page)}"
