"""Prescription: a prescribed medicine."""

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

PREFIX = "RX"
STATUS_CHOICES = ("active", "archived")


@dataclass
class Prescription:
    """A prescribed medicine."""

    id: str
    drug: str
    patient_id: str
    written_on: date
    repeats: int
    controlled: bool
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.drug, "drug")
        require_text(self.patient_id, "patient_id")
        require_date(self.written_on, "written_on")
        require_non_negative(self.repeats, "repeats")
        require_bool(self.controlled, "controlled")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.drug}"

    def __str__(self) -> str:
        return f"Prescription({self.label()}, {self.status})"

    def diff(self, other: Prescription) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from written_on to today (negative if written_on is in the future)."""
        return (today - self.written_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "drug": self.drug,
            "patient_id": self.patient_id,
            "written_on": self.written_on.isoformat(),
            "repeats": self.repeats,
            "controlled": self.controlled,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Prescription:
        record = cls(
            id=str(data["id"]),
            drug=str(data['drug']),
            patient_id=str(data['patient_id']),
            written_on=parse_date(data['written_on']),
            repeats=int(data['repeats']),
            controlled=parse_bool(data['controlled']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
