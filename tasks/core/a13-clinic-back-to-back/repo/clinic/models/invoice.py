"""Invoice: a bill for a patient or insurer."""

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

PREFIX = "INV"
STATUS_CHOICES = ("active", "archived")
STATE_CHOICES = ('draft', 'sent', 'paid', 'void')


@dataclass
class Invoice:
    """A bill for a patient or insurer."""

    id: str
    number: str
    patient_id: str
    issued_on: date
    total: int
    state: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.number, "number")
        require_text(self.patient_id, "patient_id")
        require_date(self.issued_on, "issued_on")
        require_non_negative(self.total, "total")
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
        return f"{self.id} {self.number}"

    def __str__(self) -> str:
        return f"Invoice({self.label()}, {self.status})"

    def diff(self, other: Invoice) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.total

    def age_days(self, today: date) -> int:
        """Days from issued_on to today (negative if issued_on is in the future)."""
        return (today - self.issued_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "number": self.number,
            "patient_id": self.patient_id,
            "issued_on": self.issued_on.isoformat(),
            "total": self.total,
            "state": self.state,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Invoice:
        record = cls(
            id=str(data["id"]),
            number=str(data['number']),
            patient_id=str(data['patient_id']),
            issued_on=parse_date(data['issued_on']),
            total=int(data['total']),
            state=str(data['state']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
