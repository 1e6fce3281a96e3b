"""Practitioner: a doctor, nurse or therapist."""

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

PREFIX = "PRA"
STATUS_CHOICES = ("active", "archived")
ROLE_CHOICES = ('doctor', 'nurse', 'therapist')


@dataclass
class Practitioner:
    """A doctor, nurse or therapist."""

    id: str
    full_name: str
    specialty: str
    hourly_rate: int
    role: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.full_name, "full_name")
        require_text(self.specialty, "specialty")
        require_non_negative(self.hourly_rate, "hourly_rate")
        require_choice(self.role, ROLE_CHOICES, "role")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.full_name}"

    def __str__(self) -> str:
        return f"Practitioner({self.label()}, {self.status})"

    def diff(self, other: Practitioner) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.hourly_rate

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "full_name": self.full_name,
            "specialty": self.specialty,
            "hourly_rate": self.hourly_rate,
            "role": self.role,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Practitioner:
        record = cls(
            id=str(data["id"]),
            full_name=str(data['full_name']),
            specialty=str(data['specialty']),
            hourly_rate=int(data['hourly_rate']),
            role=str(data['role']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
