"""Carrier: a transport company."""

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

PREFIX = "CAR"
STATUS_CHOICES = ("active", "archived")
MODE_CHOICES = ('road', 'rail', 'courier')


@dataclass
class Carrier:
    """A transport company."""

    id: str
    name: str
    phone: str
    base_fee: int
    mode: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.name, "name")
        require_text(self.phone, "phone")
        require_non_negative(self.base_fee, "base_fee")
        require_choice(self.mode, MODE_CHOICES, "mode")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.name}"

    def __str__(self) -> str:
        return f"Carrier({self.label()}, {self.status})"

    def diff(self, other: Carrier) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.base_fee

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "phone": self.phone,
            "base_fee": self.base_fee,
            "mode": self.mode,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Carrier:
        record = cls(
            id=str(data["id"]),
            name=str(data['name']),
            phone=str(data['phone']),
            base_fee=int(data['base_fee']),
            mode=str(data['mode']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
