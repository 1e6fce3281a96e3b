"""SalesOrder: an order a customer places."""

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

PREFIX = "SO"
STATUS_CHOICES = ("active", "archived")
STATE_CHOICES = ('open', 'picked', 'shipped', 'cancelled')


@dataclass
class SalesOrder:
    """An order a customer places."""

    id: str
    reference: str
    customer_id: str
    ordered_on: date
    amount: int
    state: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.reference, "reference")
        require_text(self.customer_id, "customer_id")
        require_date(self.ordered_on, "ordered_on")
        require_non_negative(self.amount, "amount")
        require_choice(self.state, STATE_CHOICES, "state")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.reference}"

    def __str__(self) -> str:
        return f"SalesOrder({self.label()}, {self.status})"

    def diff(self, other: SalesOrder) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.amount

    def age_days(self, today: date) -> int:
        """Days from ordered_on to today (negative if ordered_on is in the future)."""
        return (today - self.ordered_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reference": self.reference,
            "customer_id": self.customer_id,
            "ordered_on": self.ordered_on.isoformat(),
            "amount": self.amount,
            "state": self.state,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SalesOrder:
        record = cls(
            id=str(data["id"]),
            reference=str(data['reference']),
            customer_id=str(data['customer_id']),
            ordered_on=parse_date(data['ordered_on']),
            amount=int(data['amount']),
            state=str(data['state']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
