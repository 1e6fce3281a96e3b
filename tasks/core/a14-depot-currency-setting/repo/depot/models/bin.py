"""Bin: a storage location inside a warehouse."""

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

PREFIX = "BIN"
STATUS_CHOICES = ("active", "archived")
ZONE_CHOICES = ('ambient', 'chilled', 'frozen')


@dataclass
class Bin:
    """A storage location inside a warehouse."""

    id: str
    code: str
    warehouse_id: str
    max_weight_g: int
    zone: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.code, "code")
        require_text(self.warehouse_id, "warehouse_id")
        require_non_negative(self.max_weight_g, "max_weight_g")
        require_choice(self.zone, ZONE_CHOICES, "zone")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.code}"

    def __str__(self) -> str:
        return f"Bin({self.label()}, {self.status})"

    def diff(self, other: Bin) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "code": self.code,
            "warehouse_id": self.warehouse_id,
            "max_weight_g": self.max_weight_g,
            "zone": self.zone,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Bin:
        record = cls(
            id=str(data["id"]),
            code=str(data['code']),
            warehouse_id=str(data['warehouse_id']),
            max_weight_g=int(data['max_weight_g']),
            zone=str(data['zone']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
