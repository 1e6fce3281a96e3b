"""Trip records: one drive of a route by a driver and vehicle."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "TRP"
STATUS_CHOICES = ("planned", "done", "cancelled")
FIELDS = ("id", "route_id", "driver_id", "vehicle_id", "day", "distance", "status")


@dataclass
class Trip:
    """One drive of a route by a driver and vehicle.

    Fields:
        id: unique id
        route_id: route driven
        driver_id: driver
        vehicle_id: vehicle
        day: day of the trip
        distance: distance driven, in the vehicle's odometer unit
        status: trip status
    """

    id: str
    route_id: str
    driver_id: str
    vehicle_id: str
    day: str
    distance: float
    status: str

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "trip.id")
        v.require_id(self.route_id, "RTE", "trip.route_id")
        v.require_id(self.driver_id, "DRV", "trip.driver_id")
        v.require_id(self.vehicle_id, "VEH", "trip.vehicle_id")
        v.require_date(self.day, "trip.day")
        v.require_number(self.distance, "trip.distance")
        v.require_choice(self.status, STATUS_CHOICES, "trip.status")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"Trip {self.id}: {shown}"

    def copy_with(self, **changes: object) -> Trip:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a trip cannot change")
        data = self.to_dict()
        data.update(changes)
        return Trip.from_dict(data)

    def diff(self, other: Trip) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order trips by day, then id."""
        return (self.day, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> Trip:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"trip is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"trip has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> Trip:
    """A trip from a CSV row of text (see docs/cli.md)."""
    record = Trip(
        id=row["id"].strip(),
        route_id=row["route_id"].strip(),
        driver_id=row["driver_id"].strip(),
        vehicle_id=row["vehicle_id"].strip(),
        day=row["day"].strip(),
        distance=float(row["distance"]),
        status=row["status"].strip(),
    )
    record.validate()
    return record


def to_row(trip: Trip) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in trip.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "route_id": "route driven",
    "driver_id": "driver",
    "vehicle_id": "vehicle",
    "day": "day of the trip",
    "distance": "distance driven, in the vehicle's odometer unit",
    "status": "trip status",
}
FIELD_TYPES = {
    "id": "id",
    "route_id": "ref",
    "driver_id": "ref",
    "vehicle_id": "ref",
    "day": "date",
    "distance": "float",
    "status": "choice",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[Trip | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
