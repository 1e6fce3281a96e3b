"""StockCount: a counted quantity of a product in a bin."""

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

PREFIX = "CNT"
STATUS_CHOICES = ("active", "archived")


@dataclass
class StockCount:
    """A counted quantity of a product in a bin."""

    id: str
    product_id: str
    bin_id: str
    counted_on: date
    quantity: int
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.product_id, "product_id")
        require_text(self.bin_id, "bin_id")
        require_date(self.counted_on, "counted_on")
        require_non_negative(self.quantity, "quantity")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.product_id}"

    def __str__(self) -> str:
        return f"StockCount({self.label()}, {self.status})"

    def diff(self, other: StockCount) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from counted_on to today (negative if counted_on is in the future)."""
        return (today - self.counted_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "product_id": self.product_id,
            "bin_id": self.bin_id,
            "counted_on": self.counted_on.isoformat(),
            "quantity": self.quantity,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> StockCount:
        record = cls(
            id=str(data["id"]),
            product_id=str(data['product_id']),
            bin_id=str(data['bin_id']),
            counted_on=parse_date(data['counted_on']),
            quantity=int(data['quantity']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
