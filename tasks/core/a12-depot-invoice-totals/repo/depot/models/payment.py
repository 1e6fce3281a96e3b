"""Payment: money received from a customer."""

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

PREFIX = "PAY"
STATUS_CHOICES = ("active", "archived")
METHOD_CHOICES = ('transfer', 'card', 'cash')


@dataclass
class Payment:
    """Money received from a customer."""

    id: str
    reference: str
    invoice_id: str
    received_on: date
    amount: int
    method: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.reference, "reference")
        require_text(self.invoice_id, "invoice_id")
        require_date(self.received_on, "received_on")
        require_non_negative(self.amount, "amount")
        require_choice(self.method, METHOD_CHOICES, "method")
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
        return f"Payment({self.label()}, {self.status})"

    def diff(self, other: Payment) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.amount

    def age_days(self, today: date) -> int:
        """Days from received_on to today (negative if received_on is in the future)."""
        return (today - self.received_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reference": self.reference,
            "invoice_id": self.invoice_id,
            "received_on": self.received_on.isoformat(),
            "amount": self.amount,
            "method": self.method,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Payment:
        record = cls(
            id=str(data["id"]),
            reference=str(data['reference']),
            invoice_id=str(data['invoice_id']),
            received_on=parse_date(data['received_on']),
            amount=int(data['amount']),
            method=str(data['method']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
