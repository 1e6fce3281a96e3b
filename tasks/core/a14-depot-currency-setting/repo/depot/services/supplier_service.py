"""Business operations on Supplier records: create, change, archive, search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.errors import ValidationError
from ..core.events import EventBus
from ..core.ids import IdAllocator
from ..core.money import format_cents, sum_cents
from ..core.text import matches_words
from ..models.supplier import PREFIX, Supplier, RATING_CHOICES
from ..repositories.supplier_repo import SupplierRepository


class SupplierService:
    """The only place that changes Supplier records; every change is published."""

    def __init__(self, repository: SupplierRepository, bus: EventBus,
                 ids: IdAllocator | None = None) -> None:
        self.repository = repository
        self.bus = bus
        self.ids = ids or IdAllocator()

    def create(self, **values: Any) -> Supplier:
        record = Supplier(id=self.ids.next(PREFIX), **values)
        self.repository.add(record)
        self.bus.publish("supplier.created", record.to_dict())
        return record

    def update(self, record_id: str, **changes: Any) -> Supplier:
        current = self.repository.get(record_id)
        if not current.is_active:
            raise ValidationError(f"Supplier {record_id} is archived and cannot change")
        unknown = set(changes) - set(current.to_dict())
        if unknown:
            raise ValidationError(f"unknown field(s) for Supplier: {sorted(unknown)}")
        record = replace(current, **changes)
        self.repository.update(record)
        self.bus.publish("supplier.updated", {"id": record_id, "changes": changes})
        return record

    def archive(self, record_id: str) -> Supplier:
        record = self.repository.get(record_id)
        record.archive()
        self.repository.update(record)
        self.bus.publish("supplier.archived", {"id": record_id})
        return record

    def search(self, text: str) -> list[Supplier]:
        """Active records whose label contains every word of text (any case)."""
        return [r for r in self.repository.active() if matches_words(r.label(), text)]

    def tag(self, record_id: str, tag: str) -> Supplier:
        record = self.repository.get(record_id)
        if tag not in record.tags:
            record.tags.append(tag)
            self.repository.update(record)
        return record

    def restore(self, record_id: str) -> Supplier:
        """Undo archive: the record becomes active again."""
        record = self.repository.get(record_id)
        if record.is_active:
            return record
        record.status = "active"
        self.repository.update(record)
        self.bus.publish("supplier.restored", {"id": record_id})
        return record

    def bulk_create(self, rows: list[dict[str, Any]]) -> tuple[list[Supplier], list[str]]:
        """Create every valid row; problems are collected, not raised.

        Returns the created records and one message per rejected row (1-based).
        """
        created: list[Supplier] = []
        problems: list[str] = []
        for number, row in enumerate(rows, start=1):
            try:
                created.append(self.create(**row))
            except (ValidationError, TypeError) as exc:
                problems.append(f"row {number}: {exc}")
        return created, problems

    def history(self, record_id: str) -> list[str]:
        """The topics published about one record, oldest first."""
        return [
            topic for topic, payload in self.bus.history
            if payload.get("id") == record_id and topic.startswith("supplier.")
        ]

    def stats(self) -> dict[str, int]:
        records = self.repository.all()
        active = sum(1 for r in records if r.is_active)
        return {"total": len(records), "active": active, "archived": len(records) - active}

    def count_by_rating(self) -> dict[str, int]:
        """How many active records have each rating; every choice is present."""
        counts = {c: 0 for c in RATING_CHOICES}
        for record in self.repository.active():
            counts[record.rating] += 1
        return counts

    def set_rating(self, record_id: str, value: str) -> Supplier:
        if value not in RATING_CHOICES:
            raise ValidationError(f"rating must be one of {RATING_CHOICES}")
        return self.update(record_id, rating=value)
