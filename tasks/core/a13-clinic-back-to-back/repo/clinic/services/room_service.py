"""Business operations on Room records: create, change, archive, search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core.errors import ValidationError
from ..core.events import EventBus
from ..core.ids import IdAllocator
from ..core.money import format_cents, sum_cents
from ..core.text import matches_words
from ..models.room import PREFIX, Room
from ..repositories.room_repo import RoomRepository


class RoomService:
    """The only place that changes Room records; every change is published."""

    def __init__(self, repository: RoomRepository, bus: EventBus,
                 ids: IdAllocator | None = None) -> None:
        self.repository = repository
        self.bus = bus
        self.ids = ids or IdAllocator()

    def create(self, **values: Any) -> Room:
        record = Room(id=self.ids.next(PREFIX), **values)
        self.repository.add(record)
        self.bus.publish("room.created", record.to_dict())
        return record

    def update(self, record_id: str, **changes: Any) -> Room:
        current = self.repository.get(record_id)
        if not current.is_active:
            raise ValidationError(f"Room {record_id} is archived and cannot change")
        unknown = set(changes) - set(current.to_dict())
        if unknown:
            raise ValidationError(f"unknown field(s) for Room: {sorted(unknown)}")
        record = replace(current, **changes)
        self.repository.update(record)
        self.bus.publish("room.updated", {"id": record_id, "changes": changes})
        return record

    def archive(self, record_id: str) -> Room:
        record = self.repository.get(record_id)
        record.archive()
        self.repository.update(record)
        self.bus.publish("room.archived", {"id": record_id})
        return record

    def search(self, text: str) -> list[Room]:
        """Active records whose label contains every word of text (any case)."""
        return [r for r in self.repository.active() if matches_words(r.label(), text)]

    def tag(self, record_id: str, tag: str) -> Room:
        record = self.repository.get(record_id)
        if tag not in record.tags:
            record.tags.append(tag)
            self.repository.update(record)
        return record

    def restore(self, record_id: str) -> Room:
        """Undo archive: the record becomes active again."""
        record = self.repository.get(record_id)
        if record.is_active:
            return record
        record.status = "active"
        self.repository.update(record)
        self.bus.publish("room.restored", {"id": record_id})
        return record

    def bulk_create(self, rows: list[dict[str, Any]]) -> tuple[list[Room], list[str]]:
        """Create every valid row; problems are collected, not raised.

        Returns the created records and one message per rejected row (1-based).
        """
        created: list[Room] = []
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
            if payload.get("id") == record_id and topic.startswith("room.")
        ]

    def stats(self) -> dict[str, int]:
        records = self.repository.all()
        active = sum(1 for r in records if r.is_active)
        return {"total": len(records), "active": active, "archived": len(records) - active}
