"""Business operations on Payment records: create, change, archive, search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.errors import ValidationError
from ..core.events import EventBus
from ..core.ids import IdAllocator
from ..core.money import format_cents, sum_cents
from ..core.text import matches_words
from ..models.payment import PREFIX, Payment, METHOD_CHOICES
from ..repositories.payment_repo import PaymentRepository


class PaymentService:
    """The only place that changes Payment records; every change is published."""

    def __init__(self, repository: PaymentRepository, bus: EventBus,
                 ids: IdAllocator | None = None) -> None:
        self.repository = repository
        self.bus = bus
        self.ids = ids or IdAllocator()

    def create(self, **values: Any) -> Payment:
        record = Payment(id=self.ids.next(PREFIX), **values)
        self.repository.add(record)
        self.bus.publish("payment.created", record.to_dict())
        return record

    def update(self, record_id: str, **changes: Any) -> Payment:
        current = self.repository.get(record_id)
        if not current.is_active:
            raise ValidationError(f"Payment {record_id} is archived and cannot change")
        unknown = set(changes) - set(current.to_dict())
        if unknown:
            raise ValidationError(f"unknown field(s) for Payment: {sorted(unknown)}")
        record = replace(current, **changes)
        self.repository.update(record)
        self.bus.publish("payment.updated", {"id": record_id, "changes": changes})
        return record

    def archive(self, record_id: str) -> Payment:
        record = self.repository.get(record_id)
        record.archive()
        self.repository.update(record)
        self.bus.publish("payment.archived", {"id": record_id})
        return record

    def search(self, text: str) -> list[Payment]:
        """Active records whose label contains every word of text (any case)."""
        return [r for r in self.repository.active() if matches_words(r.label(), text)]

    def tag(self, record_id: str, tag: str) -> Payment:
        record = self.repository.get(record_id)
        if tag not in record.tags:
            record.tags.append(tag)
            self.repository.update(record)
        return record

    def restore(self, record_id: str) -> Payment:
        """Undo archive: the record becomes active again."""
        record = self.repository.get(record_id)
        if record.is_active:
            return record
        record.status = "active"
        self.repository.update(record)
        self.bus.publish("payment.restored", {"id": record_id})
        return record

    def bulk_create(self, rows: list[dict[str, Any]]) -> tuple[list[Payment], list[str]]:
        """Create every valid row; problems are collected, not raised.

        Returns the created records and one message per rejected row (1-based).
        """
        created: list[Payment] = []
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
            if payload.get("id") == record_id and topic.startswith("payment.")
        ]

    def stats(self) -> dict[str, int]:
        records = self.repository.all()
        active = sum(1 for r in records if r.is_active)
        return {"total": len(records), "active": active, "archived": len(records) - active}

    def total_amount(self, only_active: bool = True) -> int:
        """The sum of amount over the records, in cents."""
        records = self.repository.active() if only_active else self.repository.all()
        return sum_cents(r.amount for r in records)

    def formatted_total(self) -> str:
        return format_cents(self.total_amount())

    def count_by_method(self) -> dict[str, int]:
        """How many active records have each method; every choice is present."""
        counts = {c: 0 for c in METHOD_CHOICES}
        for record in self.repository.active():
            counts[record.method] += 1
        return counts

    def set_method(self, record_id: str, value: str) -> Payment:
        if value not in METHOD_CHOICES:
            raise ValidationError(f"method must be one of {METHOD_CHOICES}")
        return self.update(record_id, method=value)
