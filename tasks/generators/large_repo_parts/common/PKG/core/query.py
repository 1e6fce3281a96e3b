"""Filtering, sorting and paging lists of records, as list screens and the API need."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .errors import ValidationError

T = TypeVar("T")


@dataclass(frozen=True)
class Query:
    """equals: field -> value; order_by: field names, '-' prefix for descending."""

    equals: dict[str, Any] = field(default_factory=dict)
    order_by: tuple[str, ...] = ()
    page: int = 1
    per_page: int = 50

    def __post_init__(self) -> None:
        if self.page < 1:
            raise ValidationError("page must be 1 or more")
        if not 1 <= self.per_page <= 500:
            raise ValidationError("per_page must be between 1 and 500")


def _matches(record: Any, equals: dict[str, Any]) -> bool:
    return all(getattr(record, name) == value for name, value in equals.items())


def sort_records(records: list[T], order_by: Sequence[str]) -> list[T]:
    """Stable multi-key sort: apply the keys from last to first."""
    result = list(records)
    for key in reversed(order_by):
        descending = key.startswith("-")
        name = key.lstrip("-")
        result.sort(key=lambda r, n=name: getattr(r, n), reverse=descending)
    return result


def apply_query(records: list[T], query: Query) -> list[T]:
    selected = [r for r in records if _matches(r, query.equals)]
    ordered = sort_records(selected, query.order_by)
    start = (query.page - 1) * query.per_page
    return ordered[start:start + query.per_page]


def page_count(total: int, per_page: int) -> int:
    return max(1, -(-total // per_page))
