"""Appointment: a booked visit."""

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

PREFIX = "APT"
STATUS_CHOICES = ("active", "archived")
STATE_CHOICES = ('booked', 'arrived', 'done', 'cancelled', 'no_show')


@dataclass
class Appointment:
    """A booked visit."""

    id: str
    reason: str
    patient_id: str
    practitioner_id: str
    day: date
    start_minute: int
    duration_min: int
    state: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.reason, "reason")
        require_text(self.patient_id, "patient_id")
        require_text(self.practitioner_id, "practitioner_id")
        require_date(self.day, "day")
        require_non_negative(self.start_minute, "start_minute")
        require_non_negative(self.duration_min, "duration_min")
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
        return f"{self.id} {self.reason}"

    def __str__(self) -> str:
        return f"Appointment({self.label()}, {self.status})"

    def diff(self, other: Appointment) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from day to today (negative if day is in the future)."""
        return (today - self.day).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "reason": self.reason,
            "patient_id": self.patient_id,
            "practitioner_id": self.practitioner_id,
            "day": self.day.isoformat(),
            "start_minute": self.start_minute,
            "duration_min": self.duration_min,
            "state": self.state,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Appointment:
        record = cls(
            id=str(data["id"]),
            reason=str(data['reason']),
            patient_id=str(data['patient_id']),
            practitioner_id=str(data['practitioner_id']),
            day=parse_date(data['day']),
            start_minute=int(data['start_minute']),
            duration_min=int(data['duration_min']),
            state=str(data['state']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
