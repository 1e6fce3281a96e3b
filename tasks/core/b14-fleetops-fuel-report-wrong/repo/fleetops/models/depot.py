"""Depot records: a site where vehicles are parked and serviced."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "DEP"
REGION_CHOICES = ("north", "south", "east", "west")
FIELDS = ("id", "name", "city", "region", "bays", "opened")


@dataclass
class Depot:
    """A site where vehicles are parked and serviced.

    Fields:
        id: unique id
        name: display name
        city: city the depot is in
        region: sales region
        bays: number of service bays
        opened: date the depot opened
    """

    id: str
    name: str
    city: str
    region: str
    bays: int
    opened: str

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        for check in self._checks():
            check()

    def _checks(self) -> tuple[Callable[[], None], ...]:
        """One check per field, in field order; each raises ValidationError."""
        return (
            lambda: v.require_id(self.id, PREFIX, "depot.id"),
            lambda: v.require_text(self.name, "depot.name"),
            lambda: v.require_text(self.city, "depot.city"),
            lambda: v.require_choice(self.region, REGION_CHOICES, "depot.region"),
            lambda: v.require_int(self.bays, "depot.bays", minimum=0),
            lambda: v.require_date(self.opened, "depot.opened"),
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Depot {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Depot:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a depot cannot change")
        data = self.to_dict()
        data.update(changes)
        return Depot.from_dict(data)

    def diff(self, other: Depot) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order depots by opened, then id."""
        return (self.opened, self.id)

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
    def from_json(cls, text: str) -> Depot:
        """The inverse of to_json; a malformed line raises ValidationError."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"depot: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise ValidationError(f"depot: expected a JSON object, got {type(data).__name__}")
        return cls.from_dict(data)

    def matches(self, **filters: object) -> bool:
        """True if every named field equals the given value."""
        for key, wanted in filters.items():
            if key not in FIELDS:
                raise AttributeError(f"Depot has no field {key!r}")
            if getattr(self, key) != wanted:
                return False
        return True

    def same_content(self, other: Depot) -> bool:
        """True if every field but the id is equal: most likely the same entry twice."""
        return all(getattr(self, k) == getattr(other, k) for k in FIELDS[1:])

    def label(self) -> str:
        """A short label for pick lists: the id and the name."""
        return f"{self.id} ({self.name})"

    @classmethod
    def from_dict(cls, data: dict) -> Depot:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"depot is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"depot has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Depot:
    """A depot from a CSV row of text (see docs/cli.md)."""
    record = Depot(
        id=row["id"].strip(),
        name=row["name"].strip(),
        city=row["city"].strip(),
        region=row["region"].strip(),
        bays=int(row["bays"]),
        opened=row["opened"].strip(),
    )
    record.validate()
    return record


def to_row(depot: Depot) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in depot.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "name": "display name",
    "city": "city the depot is in",
    "region": "sales region",
    "bays": "number of service bays",
    "opened": "date the depot opened",
}
FIELD_TYPES = {
    "id": "id",
    "name": "text",
    "city": "text",
    "region": "choice",
    "bays": "int",
    "opened": "date",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Depot | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)

def parse_json_lines(text: str) -> tuple[list[Depot], list[str]]:
    """Records from JSON Lines text and one problem per bad line (blank lines are skipped)."""
    records: list[Depot] = []
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(Depot.from_json(line))
        except ValidationError as exc:
            problems.append(f"line {n}: {exc}")
    return records, problems


def to_json_lines(records: Iterable[Depot]) -> str:
    """One JSON object per line, each line ending in a newline."""
    return "".join(r.to_json() + "\n" for r in records)
