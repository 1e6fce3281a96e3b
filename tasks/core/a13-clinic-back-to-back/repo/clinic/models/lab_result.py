"""LabResult: a laboratory result."""

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

PREFIX = "RES"
STATUS_CHOICES = ("active", "archived")
FLAG_CHOICES = ('normal', 'low', 'high')


@dataclass
class LabResult:
    """A laboratory result."""

    id: str
    analyte: str
    lab_order_id: str
    resulted_on: date
    value_milli: int
    flag: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.analyte, "analyte")
        require_text(self.lab_order_id, "lab_order_id")
        require_date(self.resulted_on, "resulted_on")
        require_non_negative(self.value_milli, "value_milli")
        require_choice(self.flag, FLAG_CHOICES, "flag")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.analyte}"

    def __str__(self) -> str:
        return f"LabResult({self.label()}, {self.status})"

    def diff(self, other: LabResult) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from resulted_on to today (negative if resulted_on is in the future)."""
        return (today - self.resulted_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "analyte": self.analyte,
            "lab_order_id": self.lab_order_id,
            "resulted_on": self.resulted_on.isoformat(),
            "value_milli": self.value_milli,
            "flag": self.flag,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LabResult:
        record = cls(
            id=str(data["id"]),
            analyte=str(data['analyte']),
            lab_order_id=str(data['lab_order_id']),
            resulted_on=parse_date(data['resulted_on']),
            value_milli=int(data['value_milli']),
            flag=str(data['flag']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
