"""Business operations on ReturnNote records: create, change, archive, search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.errors import ValidationError
from ..core.events import EventBus
from ..core.ids import IdAllocator
from ..core.money import format_cents, sum_cents
from ..core.text import matches_words
from ..models.return_note import PREFIX, ReturnNote, CONDITION_CHOICES
from ..repositories.return_note_repo import ReturnNoteRepository


class ReturnNoteService:
    """The only place that changes ReturnNote records; every change is published."""

    def __init__(self, repository: ReturnNoteRepository, bus: EventBus,
                 ids: IdAllocator | None = None) -> None:
        self.repository = repository
        self.bus = bus
        self.ids = ids or IdAllocator()

    def create(self, **values: Any) -> ReturnNote:
        record = ReturnNote(id=self.ids.next(PREFIX), **values)
        self.repository.add(record)
        self.bus.publish("return_note.created", record.to_dict())
        return record

    def update(self, record_id: str, **changes: Any) -> ReturnNote:
        current = self.repository.get(record_id)
        if not current.is_active:
            raise ValidationError(f"ReturnNote {record_id} is archived and cannot change")
        unknown = set(changes) - set(current.to_dict())
        if unknown:
            raise ValidationError(f"unknown field(s) for ReturnNote: {sorted(unknown)}")
        record = replace(current, **changes)
        self.repository.update(record)
        self.bus.publish("return_note.updated", {"id": record_id, "changes": changes})
        return record

    def archive(self, record_id: str) -> ReturnNote:
        record = self.repository.get(record_id)
        record.archive()
        self.repository.update(record)
        self.bus.publish("return_note.archived", {"id": record_id})
        return record

    def search(self, text: str) -> list[ReturnNote]:
        """Active records whose label contains every word of text (any case)."""
        return [r for r in self.repository.active() if matches_words(r.label(), text)]

    def tag(self, record_id: str, tag: str) -> ReturnNote:
        record = self.repository.get(record_id)
        if tag not in record.tags:
            record.tags.append(tag)
            self.repository.update(record)
        return record

    def restore(self, record_id: str) -> ReturnNote:
        """Undo archive: the record becomes active again."""
        record = self.repository.get(record_id)
        if record.is_active:
            return record
        record.status = "active"
        self.repository.update(record)
        self.bus.publish("return_note.restored", {"id": record_id})
        return record

    def bulk_create(self, rows: list[dict[str, Any]]) -> tuple[list[ReturnNote], list[str]]:
        """Create every valid row; problems are collected, not raised.

        Returns the created records and one message per rejected row (1-based).
        """
        created: list[ReturnNote] = []
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
            if payload.get("id") == record_id and topic.startswith("return_note.")
        ]

    def stats(self) -> dict[str, int]:
        records = self.repository.all()
        active = sum(1 for r in records if r.is_active)
        return {"total": len(records), "active": active, "archived": len(records) - active}

    def total_credit(self, only_active: bool = True) -> int:
        """The sum of credit over the records, in cents."""
        records = self.repository.active() if only_active else self.repository.all()
        return sum_cents(r.credit for r in records)

    def formatted_total(self) -> str:
        return format_cents(self.total_credit())

    def count_by_condition(self) -> dict[str, int]:
        """How many active records have each condition; every choice is present."""
        counts = {c: 0 for c in CONDITION_CHOICES}
        for record in self.repository.active():
            counts[record.condition] += 1
        return counts

    def set_condition(self, record_id: str, value: str) -> ReturnNote:
        if value not in CONDITION_CHOICES:
            raise ValidationError(f"condition must be one of {CONDITION_CHOICES}")
        return self.update(record_id, condition=value)
