"""Maintenance records: a workshop job on a vehicle."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "MNT"
KIND_CHOICES = ("service", "repair", "recall")
FIELDS = ("id", "vehicle_id", "depot_id", "day", "kind", "labour_hours", "cost")


@dataclass
class Maintenance:
    """A workshop job on a vehicle.

    Fields:
        id: unique id
        vehicle_id: vehicle serviced
        depot_id: depot whose workshop did the job
        day: day of the job
        kind: kind of job
        labour_hours: hours of labour
        cost: total cost
    """

    id: str
    vehicle_id: str
    depot_id: str
    day: str
    kind: str
    labour_hours: float
    cost: float

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "maintenance.id")
        v.require_id(self.vehicle_id, "VEH", "maintenance.vehicle_id")
        v.require_id(self.depot_id, "DEP", "maintenance.depot_id")
        v.require_date(self.day, "maintenance.day")
        v.require_choice(self.kind, KIND_CHOICES, "maintenance.kind")
        v.require_number(self.labour_hours, "maintenance.labour_hours")
        v.require_number(self.cost, "maintenance.cost")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Maintenance {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Maintenance:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a maintenance cannot change")
        data = self.to_dict()
        data.update(changes)
        return Maintenance.from_dict(data)

    def diff(self, other: Maintenance) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order maintenances by day, then id."""
        return (self.day, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> Maintenance:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"maintenance is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"maintenance has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Maintenance:
    """A maintenance from a CSV row of text (see docs/cli.md)."""
    record = Maintenance(
        id=row["id"].strip(),
        vehicle_id=row["vehicle_id"].strip(),
        depot_id=row["depot_id"].strip(),
        day=row["day"].strip(),
        kind=row["kind"].strip(),
        labour_hours=float(row["labour_hours"]),
        cost=float(row["cost"]),
    )
    record.validate()
    return record


def to_row(maintenance: Maintenance) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in maintenance.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "vehicle_id": "vehicle serviced",
    "depot_id": "depot whose workshop did the job",
    "day": "day of the job",
    "kind": "kind of job",
    "labour_hours": "hours of labour",
    "cost": "total cost",
}
FIELD_TYPES = {
    "id": "id",
    "vehicle_id": "ref",
    "depot_id": "ref",
    "day": "date",
    "kind": "choice",
    "labour_hours": "float",
    "cost": "money",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Maintenance | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
