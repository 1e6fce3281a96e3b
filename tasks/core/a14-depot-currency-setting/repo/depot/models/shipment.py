"""Shipment: goods leaving a warehouse."""

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

PREFIX = "SHP"
STATUS_CHOICES = ("active", "archived")
CARRIER_CHOICES = ('road', 'rail', 'courier')


@dataclass
class Shipment:
    """Goods leaving a warehouse."""

    id: str
    tracking: str
    order_id: str
    shipped_on: date
    parcels: int
    carrier: str
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.tracking, "tracking")
        require_text(self.order_id, "order_id")
        require_date(self.shipped_on, "shipped_on")
        require_non_negative(self.parcels, "parcels")
        require_choice(self.carrier, CARRIER_CHOICES, "carrier")
        require_choice(self.status, STATUS_CHOICES, "status")
        for tag in self.tags:
            require_text(tag, "tags")

    @property
    def is_active(self) -> bool:
        return self.status == "active"

    def archive(self) -> None:
        self.status = "archived"

    def label(self) -> str:
        return f"{self.id} {self.tracking}"

    def __str__(self) -> str:
        return f"Shipment({self.label()}, {self.status})"

    def diff(self, other: Shipment) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def age_days(self, today: date) -> int:
        """Days from shipped_on to today (negative if shipped_on is in the future)."""
        return (today - self.shipped_on).days

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tracking": self.tracking,
            "order_id": self.order_id,
            "shipped_on": self.shipped_on.isoformat(),
            "parcels": self.parcels,
            "carrier": self.carrier,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Shipment:
        record = cls(
            id=str(data["id"]),
            tracking=str(data['tracking']),
            order_id=str(data['order_id']),
            shipped_on=parse_date(data['shipped_on']),
            parcels=int(data['parcels']),
            carrier=str(data['carrier']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
