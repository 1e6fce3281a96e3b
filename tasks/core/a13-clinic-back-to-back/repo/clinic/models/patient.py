"""Patient: a registered patient."""

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

PREFIX = "PAT"
STATUS_CHOICES = ("active", "archived")
INSURER_CHOICES = ('public', 'private', 'none')


@dataclass
class Patient:
    """A registered patient."""

    id: str
    full_name: str
    postcode: str
    born_on: date
    insurer: str
    consent_sms: bool
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.full_name, "full_name")
        require_text(self.postcode, "postcode")
        require_date(self.born_on, "born_on")
        require_choice(self.insurer, INSURER_CHOICES, "insurer")
        require_bool(self.consent_sms, "consent_sms")
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
        return f"Patient({self.label()}, {self.status})"

    def diff(self, other: Patient) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from born_on to today (negative if born_on is in the future)."""
        return (today - self.born_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "full_name": self.full_name,
            "postcode": self.postcode,
            "born_on": self.born_on.isoformat(),
            "insurer": self.insurer,
            "consent_sms": self.consent_sms,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Patient:
        record = cls(
            id=str(data["id"]),
            full_name=str(data['full_name']),
            postcode=str(data['postcode']),
            born_on=parse_date(data['born_on']),
            insurer=str(data['insurer']),
            consent_sms=parse_bool(data['consent_sms']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
