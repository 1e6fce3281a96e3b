"""Building the URLs of a pager widget (first, previous, next, last and numbered pages)."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def page_url(url: str, page: int) -> str:
    """The same URL with its ``page`` query parameter set; page 1 drops the parameter.

    Other query parameters (filters, sort order) are kept in their original order.
    """
    if page < 1:
        raise ValueError("page must be at least 1")
    parts = urlsplit(url)
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "page"]
    if page > 1:
        params.append(("page", str(page)))
    return urlunsplit(parts._replace(query=urlencode(params)))


def nav_links(url: str, current: int, pages: int) -> dict[str, str | None]:
    """first/prev/next/last URLs for the current page; None where there is no such page."""
    if pages < 1:
        raise ValueError("pages must be at least 1")
    if not 1 <= current <= pages:
        raise ValueError(f"page {current} out of range 1..{pages}")
    return {
        "first": page_url(url, 1) if current > 1 else None,
        "prev": page_url(url, current - 1) if current > 1 else None,
        "next": page_url(url, current + 1) if current < pages else None,
        "last": page_url(url, pages) if current < pages else None,
    }


def link_header(url: str, current: int, pages: int) -> str:
    """An RFC 8288 ``Link`` header value for API responses, e.g. '<...?page=2>; rel="next"'."""
    links = nav_links(url, current, pages)
    return ", ".join(f'<{target}>; rel="{rel}"' for rel, target in links.items() if target)
