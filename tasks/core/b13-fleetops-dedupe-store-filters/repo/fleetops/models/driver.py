"""Driver records: a person licensed to drive fleet vehicles."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "DRV"
LICENSE_CLASS_CHOICES = ("B", "C", "CE")
FIELDS = ("id", "name", "license_class", "depot_id", "hired", "hourly_rate", "active")


@dataclass
class Driver:
    """A person licensed to drive fleet vehicles.

    Fields:
        id: unique id
        name: full name
        license_class: driving licence class
        depot_id: depot the driver reports to
        hired: hiring date
        hourly_rate: pay per hour
        active: false once the driver left
    """

    id: str
    name: str
    license_class: str
    depot_id: str
    hired: str
    hourly_rate: float
    active: bool

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "driver.id")
        v.require_text(self.name, "driver.name")
        v.require_choice(self.license_class, LICENSE_CLASS_CHOICES, "driver.license_class")
        v.require_id(self.depot_id, "DEP", "driver.depot_id")
        v.require_date(self.hired, "driver.hired")
        v.require_number(self.hourly_rate, "driver.hourly_rate")
        v.require_bool(self.active, "driver.active")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Driver {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Driver:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a driver cannot change")
        data = self.to_dict()
        data.update(changes)
        return Driver.from_dict(data)

    def diff(self, other: Driver) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order drivers by hired, then id."""
        return (self.hired, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> Driver:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"driver is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"driver has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Driver:
    """A driver from a CSV row of text (see docs/cli.md)."""
    record = Driver(
        id=row["id"].strip(),
        name=row["name"].strip(),
        license_class=row["license_class"].strip(),
        depot_id=row["depot_id"].strip(),
        hired=row["hired"].strip(),
        hourly_rate=float(row["hourly_rate"]),
        active=v.parse_bool(row["active"]),
    )
    record.validate()
    return record


def to_row(driver: Driver) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in driver.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "name": "full name",
    "license_class": "driving licence class",
    "depot_id": "depot the driver reports to",
    "hired": "hiring date",
    "hourly_rate": "pay per hour",
    "active": "false once the driver left",
}
FIELD_TYPES = {
    "id": "id",
    "name": "text",
    "license_class": "choice",
    "depot_id": "ref",
    "hired": "date",
    "hourly_rate": "money",
    "active": "bool",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Driver | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
