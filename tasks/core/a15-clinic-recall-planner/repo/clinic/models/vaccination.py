"""Vaccination: a given vaccine dose."""

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

PREFIX = "VAC"
STATUS_CHOICES = ("active", "archived")


@dataclass
class Vaccination:
    """A given vaccine dose."""

    id: str
    vaccine: str
    patient_id: str
    given_on: date
    dose: int
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.vaccine, "vaccine")
        require_text(self.patient_id, "patient_id")
        require_date(self.given_on, "given_on")
        require_non_negative(self.dose, "dose")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.vaccine}"

    def __str__(self) -> str:
        return f"Vaccination({self.label()}, {self.status})"

    def diff(self, other: Vaccination) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from given_on to today (negative if given_on is in the future)."""
        return (today - self.given_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "vaccine": self.vaccine,
            "patient_id": self.patient_id,
            "given_on": self.given_on.isoformat(),
            "dose": self.dose,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Vaccination:
        record = cls(
            id=str(data["id"]),
            vaccine=str(data['vaccine']),
            patient_id=str(data['patient_id']),
            given_on=parse_date(data['given_on']),
            dose=int(data['dose']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
