"""Vehicle records: a truck or van of the fleet."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "VEH"
ODOMETER_UNIT_CHOICES = ("km", "mi")
FIELDS = ("id", "plate", "make", "year", "depot_id", "odometer_unit", "capacity_kg", "active")


@dataclass
class Vehicle:
    """A truck or van of the fleet.

    Fields:
        id: unique id
        plate: registration plate
        make: manufacturer
        year: model year
        depot_id: home depot
        odometer_unit: unit the odometer counts in
        capacity_kg: payload capacity in kilograms
        active: false once the vehicle is retired
    """

    id: str
    plate: str
    make: str
    year: int
    depot_id: str
    odometer_unit: str
    capacity_kg: float
    active: bool

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "vehicle.id")
        v.require_text(self.plate, "vehicle.plate")
        v.require_text(self.make, "vehicle.make")
        v.require_int(self.year, "vehicle.year", minimum=1950)
        v.require_id(self.depot_id, "DEP", "vehicle.depot_id")
        v.require_choice(self.odometer_unit, ODOMETER_UNIT_CHOICES, "vehicle.odometer_unit")
        v.require_number(self.capacity_kg, "vehicle.capacity_kg")
        v.require_bool(self.active, "vehicle.active")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Vehicle {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Vehicle:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a vehicle cannot change")
        data = self.to_dict()
        data.update(changes)
        return Vehicle.from_dict(data)

    def diff(self, other: Vehicle) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order vehicles by plate, then id."""
        return (self.plate, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> Vehicle:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"vehicle is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"vehicle has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Vehicle:
    """A vehicle from a CSV row of text (see docs/cli.md)."""
    record = Vehicle(
        id=row["id"].strip(),
        plate=row["plate"].strip(),
        make=row["make"].strip(),
        year=int(row["year"]),
        depot_id=row["depot_id"].strip(),
        odometer_unit=row["odometer_unit"].strip(),
        capacity_kg=float(row["capacity_kg"]),
        active=v.parse_bool(row["active"]),
    )
    record.validate()
    return record


def to_row(vehicle: Vehicle) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in vehicle.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "plate": "registration plate",
    "make": "manufacturer",
    "year": "model year",
    "depot_id": "home depot",
    "odometer_unit": "unit the odometer counts in",
    "capacity_kg": "payload capacity in kilograms",
    "active": "false once the vehicle is retired",
}
FIELD_TYPES = {
    "id": "id",
    "plate": "text",
    "make": "text",
    "year": "int",
    "depot_id": "ref",
    "odometer_unit": "choice",
    "capacity_kg": "float",
    "active": "bool",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Vehicle | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
