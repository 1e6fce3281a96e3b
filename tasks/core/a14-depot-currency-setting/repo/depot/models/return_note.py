"""ReturnNote: goods a customer sends back."""

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

PREFIX = "RET"
STATUS_CHOICES = ("active", "archived")
CONDITION_CHOICES = ('resellable', 'damaged')


@dataclass
class ReturnNote:
    """Goods a customer sends back."""

    id: str
    reason: str
    order_id: str
    received_on: date
    credit: int
    condition: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.reason, "reason")
        require_text(self.order_id, "order_id")
        require_date(self.received_on, "received_on")
        require_non_negative(self.credit, "credit")
        require_choice(self.condition, CONDITION_CHOICES, "condition")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.reason}"

    def __str__(self) -> str:
        return f"ReturnNote({self.label()}, {self.status})"

    def diff(self, other: ReturnNote) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.credit

    def age_days(self, today: date) -> int:
        """Days from received_on to today (negative if received_on is in the future)."""
        return (today - self.received_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reason": self.reason,
            "order_id": self.order_id,
            "received_on": self.received_on.isoformat(),
            "credit": self.credit,
            "condition": self.condition,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReturnNote:
        record = cls(
            id=str(data["id"]),
            reason=str(data['reason']),
            order_id=str(data['order_id']),
            received_on=parse_date(data['received_on']),
            credit=int(data['credit']),
            condition=str(data['condition']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
