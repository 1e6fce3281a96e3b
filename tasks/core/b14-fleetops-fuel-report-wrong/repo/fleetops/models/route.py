"""Route records: a planned sequence of stops."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "RTE"
KIND_CHOICES = ("urban", "regional", "longhaul")
FIELDS = ("id", "name", "depot_id", "distance_km", "kind")


@dataclass
class Route:
    """A planned sequence of stops.

    Fields:
        id: unique id
        name: route name
        depot_id: depot the route starts from
        distance_km: planned length in kilometres
        kind: kind of route
    """

    id: str
    name: str
    depot_id: str
    distance_km: float
    kind: str

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        for check in self._checks():
            check()

    def _checks(self) -> tuple[Callable[[], None], ...]:
        """One check per field, in field order; each raises ValidationError."""
        return (
            lambda: v.require_id(self.id, PREFIX, "route.id"),
            lambda: v.require_text(self.name, "route.name"),
            lambda: v.require_id(self.depot_id, "DEP", "route.depot_id"),
            lambda: v.require_number(self.distance_km, "route.distance_km"),
            lambda: v.require_choice(self.kind, KIND_CHOICES, "route.kind"),
        )

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Route {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Route:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a route cannot change")
        data = self.to_dict()
        data.update(changes)
        return Route.from_dict(data)

    def diff(self, other: Route) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order routes by name, then id."""
        return (self.name, self.id)

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
    def from_json(cls, text: str) -> Route:
        """The inverse of to_json; a malformed line raises ValidationError."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"route: not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise ValidationError(f"route: expected a JSON object, got {type(data).__name__}")
        return cls.from_dict(data)

    def matches(self, **filters: object) -> bool:
        """True if every named field equals the given value."""
        for key, wanted in filters.items():
            if key not in FIELDS:
                raise AttributeError(f"Route has no field {key!r}")
            if getattr(self, key) != wanted:
                return False
        return True

    def same_content(self, other: Route) -> bool:
        """True if every field but the id is equal: most likely the same entry twice."""
        return all(getattr(self, k) == getattr(other, k) for k in FIELDS[1:])

    def label(self) -> str:
        """A short label for pick lists: the id and the name."""
        return f"{self.id} ({self.name})"

    @classmethod
    def from_dict(cls, data: dict) -> Route:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"route is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"route has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Route:
    """A route from a CSV row of text (see docs/cli.md)."""
    record = Route(
        id=row["id"].strip(),
        name=row["name"].strip(),
        depot_id=row["depot_id"].strip(),
        distance_km=float(row["distance_km"]),
        kind=row["kind"].strip(),
    )
    record.validate()
    return record


def to_row(route: Route) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in route.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "name": "route name",
    "depot_id": "depot the route starts from",
    "distance_km": "planned length in kilometres",
    "kind": "kind of route",
}
FIELD_TYPES = {
    "id": "id",
    "name": "text",
    "depot_id": "ref",
    "distance_km": "float",
    "kind": "choice",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Route | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)

def parse_json_lines(text: str) -> tuple[list[Route], list[str]]:
    """Records from JSON Lines text and one problem per bad line (blank lines are skipped)."""
    records: list[Route] = []
    problems: list[str] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(Route.from_json(line))
        except ValidationError as exc:
            problems.append(f"line {n}: {exc}")
    return records, problems


def to_json_lines(records: Iterable[Route]) -> str:
    """One JSON object per line, each line ending in a newline."""
    return "".join(r.to_json() + "\n" for r in records)
