"""PriceList: prices agreed with a customer segment."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..core.ids import check_id
from ..core.parsing import parse_bool, parse_date
from ..core.validation import (
    require_bool,
    require_choice,
    require_date,
    require_non_negative,
    require_text,
)

PREFIX = "PL"
STATUS_CHOICES = ("active", "archived")


@dataclass
class PriceList:
    """Prices agreed with a customer segment."""

    id: str
    name: str
    segment: str
    valid_from: date
    discount_pct: int
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.name, "name")
        require_text(self.segment, "segment")
        require_date(self.valid_from, "valid_from")
        require_non_negative(self.discount_pct, "discount_pct")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.name}"

    def __str__(self) -> str:
        return f"PriceList({self.label()}, {self.status})"

    def diff(self, other: PriceList) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from valid_from to today (negative if valid_from is in the future)."""
        return (today - self.valid_from).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "segment": self.segment,
            "valid_from": self.valid_from.isoformat(),
            "discount_pct": self.discount_pct,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PriceList:
        record = cls(
            id=str(data["id"]),
            name=str(data['name']),
            segment=str(data['segment']),
            valid_from=parse_date(data['valid_from']),
            discount_pct=int(data['discount_pct']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
