"""Product: a stocked product."""

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

PREFIX = "PRD"
STATUS_CHOICES = ("active", "archived")
CATEGORY_CHOICES = ('food', 'drink', 'household')


@dataclass
class Product:
    """A stocked product."""

    id: str
    name: str
    sku: str
    unit_price: int
    weight_g: int
    category: str
    discontinued: bool
    status: str = "active"
    tags: list[str] = field(default_factory=list)

    def validate(self) -> None:
        """Raise ValidationError naming the first field that is wrong."""
        check_id(self.id, PREFIX)
        require_text(self.name, "name")
        require_text(self.sku, "sku")
        require_non_negative(self.unit_price, "unit_price")
        require_non_negative(self.weight_g, "weight_g")
        require_choice(self.category, CATEGORY_CHOICES, "category")
        require_bool(self.discontinued, "discontinued")
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
        return f"Product({self.label()}, {self.status})"

    def diff(self, other: Product) -> dict[str, tuple[Any, Any]]:
        """Fields whose values differ: name -> (this value, other value)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def has_tag(self, tag: str) -> bool:
        return tag.casefold() in (t.casefold() for t in self.tags)

    def money_total(self) -> int:
        """The sum of this record's money fields, in cents."""
        return self.unit_price

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "sku": self.sku,
            "unit_price": self.unit_price,
            "weight_g": self.weight_g,
            "category": self.category,
            "discontinued": self.discontinued,
            "status": self.status,
            "tags": list(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Product:
        record = cls(
            id=str(data["id"]),
            name=str(data['name']),
            sku=str(data['sku']),
            unit_price=int(data['unit_price']),
            weight_g=int(data['weight_g']),
            category=str(data['category']),
            discontinued=parse_bool(data['discontinued']),
            status=str(data.get("status", "active")),
            tags=[str(t) for t in data.get("tags", [])],
        )
        record.validate()
        return record
