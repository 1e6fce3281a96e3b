"""Reading pagination parameters from a request's query string.

List views accept ``?page=N&per_page=M``. Missing values fall back to the defaults, and
per_page is clamped to MAX_PER_PAGE so a client cannot ask for the whole table at once.
"""

from dataclasses import dataclass
from urllib.parse import parse_qs

DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100


class BadPageParameter(ValueError):
    """A page or per_page value that is not a positive integer; the message names it."""


@dataclass(frozen=True)
class PageRequest:
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE

    @property
    def offset(self) -> int:
        """Index of the first item on the page (for SQL OFFSET)."""
        return (self.page - 1) * self.per_page


def _positive_int(name: str, raw: str) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise BadPageParameter(f"{name} must be a whole number, got {raw!r}") from None
    if value < 1:
        raise BadPageParameter(f"{name} must be at least 1, got {value}")
    return value


def parse_page_request(query: str, default_per_page: int = DEFAULT_PER_PAGE) -> PageRequest:
    """'page=3&per_page=50' -> PageRequest(3, 50); a leading '?' is allowed."""
    params = parse_qs(query.lstrip("?"), keep_blank_values=True)
    page = 1
    per_page = default_per_page
    if "page" in params:
        page = _positive_int("page", params["page"][-1])
    if "per_page" in params:
        per_page = _positive_int("per_page", params["per_page"][-1])
    return PageRequest(page, min(per_page, MAX_PER_PAGE))
