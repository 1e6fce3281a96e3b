"""Toll records: a road toll paid on a trip."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "TOL"
FIELDS = ("id", "trip_id", "day", "amount", "road")


@dataclass
class Toll:
    """A road toll paid on a trip.

    Fields:
        id: unique id
        trip_id: trip the toll was paid on
        day: day the toll was paid
        amount: amount paid
        road: tolled road
    """

    id: str
    trip_id: str
    day: str
    amount: float
    road: str

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        for check in self._checks():
            check()

    def _checks(self) -> tuple[Callable[[], None], ...]:
        """One check per field, in field order; each raises ValidationError."""
        return (
            lambda: v.require_id(self.id, PREFIX, "toll.id"),
            lambda: v.require_id(self.trip_id, "TRP", "toll.trip_id"),
            lambda: v.require_date(self.day, "toll.day"),
            lambda: v.require_number(self.amount, "toll.amount"),
            lambda: v.require_text(self.road, "toll.road"),
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Toll {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Toll:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a toll cannot change")
        data = self.to_dict()
        data.update(changes)
        return Toll.from_dict(data)

    def diff(self, other: Toll) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order tolls by day, then id."""
        return (self.day, self.id)

    def problems(self) -> list[str]:
        """Every field problem of the record; validate() stops at the first one."""
        found = []
        for check in self._checks():
            try:
                check()
            except ValidationError as exc:
                found.append(str(exc))
        return found

    def is_valid(self) -> bool:
        return not self.problems()

    def to_json(self) -> str:
        """The record as one line of JSON, keys in field order."""
        return json.dumps({k: getattr(self, k) for k in FIELDS})

    @classmethod
    def from_json(cls, text: str) -> Toll:
        """The inverse of to_json; a malformed line raises ValidationError."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"toll: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise ValidationError(f"toll: expected a JSON object, got {type(data).__name__}")
        return cls.from_dict(data)

    def matches(self, **filters: object) -> bool:
        """True if every named field equals the given value."""
        for key, wanted in filters.items():
            if key not in FIELDS:
                raise AttributeError(f"Toll has no field {key!r}")
            if getattr(self, key) != wanted:
                return False
        return True

    def same_content(self, other: Toll) -> bool:
        """True if every field but the id is equal: most likely the same entry twice."""
        return all(getattr(self, k) == getattr(other, k) for k in FIELDS[1:])

    def label(self) -> str:
        """A short label for pick lists: the id and the road."""
        return f"{self.id} ({self.road})"

    @classmethod
    def from_dict(cls, data: dict) -> Toll:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"toll is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"toll has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Toll:
    """A toll from a CSV row of text (see docs/cli.md)."""
    record = Toll(
        id=row["id"].strip(),
        trip_id=row["trip_id"].strip(),
        day=row["day"].strip(),
        amount=float(row["amount"]),
        road=row["road"].strip(),
    )
    record.validate()
    return record


def to_row(toll: Toll) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in toll.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "trip_id": "trip the toll was paid on",
    "day": "day the toll was paid",
    "amount": "amount paid",
    "road": "tolled road",
}
FIELD_TYPES = {
    "id": "id",
    "trip_id": "ref",
    "day": "date",
    "amount": "money",
    "road": "text",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Toll | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)

def parse_json_lines(text: str) -> tuple[list[Toll], list[str]]:
    """Records from JSON Lines text and one problem per bad line (blank lines are skipped)."""
    records: list[Toll] = []
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(Toll.from_json(line))
        except ValidationError as exc:
            problems.append(f"line {n}: {exc}")
    return records, problems


def to_json_lines(records: Iterable[Toll]) -> str:
    """One JSON object per line, each line ending in a newline."""
    return "".join(r.to_json() + "\n" for r in records)
