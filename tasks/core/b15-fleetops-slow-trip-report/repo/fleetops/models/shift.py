"""Shift records: a driver's working shift."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "SHF"
FIELDS = ("id", "driver_id", "day", "hours", "overtime")


@dataclass
class Shift:
    """A driver's working shift.

    Fields:
        id: unique id
        driver_id: driver
        day: day of the shift
        hours: hours worked
        overtime: paid at the overtime rate
    """

    id: str
    driver_id: str
    day: str
    hours: float
    overtime: bool

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "shift.id")
        v.require_id(self.driver_id, "DRV", "shift.driver_id")
        v.require_date(self.day, "shift.day")
        v.require_number(self.hours, "shift.hours")
        v.require_bool(self.overtime, "shift.overtime")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Shift {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Shift:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a shift cannot change")
        data = self.to_dict()
        data.update(changes)
        return Shift.from_dict(data)

    def diff(self, other: Shift) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order shifts by day, then id."""
        return (self.day, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> Shift:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"shift is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"shift has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Shift:
    """A shift from a CSV row of text (see docs/cli.md)."""
    record = Shift(
        id=row["id"].strip(),
        driver_id=row["driver_id"].strip(),
        day=row["day"].strip(),
        hours=float(row["hours"]),
        overtime=v.parse_bool(row["overtime"]),
    )
    record.validate()
    return record


def to_row(shift: Shift) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in shift.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "driver_id": "driver",
    "day": "day of the shift",
    "hours": "hours worked",
    "overtime": "paid at the overtime rate",
}
FIELD_TYPES = {
    "id": "id",
    "driver_id": "ref",
    "day": "date",
    "hours": "float",
    "overtime": "bool",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Shift | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
