"""FuelLog records: one refuelling of a vehicle."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from fleetops.errors import ValidationError
from fleetops.util import validation as v

PREFIX = "FUE"
FIELDS = ("id", "vehicle_id", "day", "liters", "price_per_liter", "distance")


@dataclass
class FuelLog:
    """One refuelling of a vehicle.

    Fields:
        id: unique id
        vehicle_id: vehicle refuelled
        day: day of the refuelling
        liters: litres of fuel
        price_per_liter: price paid per litre
        distance: distance since the last refuelling, in the odometer unit
    """

    id: str
    vehicle_id: str
    day: str
    liters: float
    price_per_liter: float
    distance: float

    def validate(self) -> None:
        """Raise ValidationError if a field is wrong."""
        v.require_id(self.id, PREFIX, "fuel_log.id")
        v.require_id(self.vehicle_id, "VEH", "fuel_log.vehicle_id")
        v.require_date(self.day, "fuel_log.day")
        v.require_number(self.liters, "fuel_log.liters")
        v.require_number(self.price_per_liter, "fuel_log.price_per_liter")
        v.require_number(self.distance, "fuel_log.distance")

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])
        return f"FuelLog {self.id}: {shown}"

    def copy_with(self, **changes: object) -> FuelLog:
        """A validated copy with some fields changed; the id cannot change."""
        if "id" in changes:
            raise ValidationError("the id of a fuel_log cannot change")
        data = self.to_dict()
        data.update(changes)
        return FuelLog.from_dict(data)

    def diff(self, other: FuelLog) -> dict[str, tuple[object, object]]:
        """Fields whose values differ from other's, as (mine, theirs)."""
        return {
            k: (getattr(self, k), getattr(other, k))
            for k in FIELDS
            if getattr(self, k) != getattr(other, k)
        }

    def sort_key(self) -> tuple:
        """Order fuel_logs by day, then id."""
        return (self.day, self.id)

    @classmethod
    def from_dict(cls, data: dict) -> FuelLog:
        missing = [k for k in FIELDS if k not in data]
        if missing:
            raise ValidationError(f"fuel_log is missing fields: {', '.join(missing)}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise ValidationError(f"fuel_log has unknown fields: {', '.join(unknown)}")
        record = cls(**{k: data[k] for k in FIELDS})
        record.validate()
        return record


def parse_row(row: dict[str, str]) -> FuelLog:
    """A fuel_log from a CSV row of text (see docs/cli.md)."""
    record = FuelLog(
        id=row["id"].strip(),
        vehicle_id=row["vehicle_id"].strip(),
        day=row["day"].strip(),
        liters=float(row["liters"]),
        price_per_liter=float(row["price_per_liter"]),
        distance=float(row["distance"]),
    )
    record.validate()
    return record


def to_row(fuel_log: FuelLog) -> dict[str, str]:
    """The inverse of parse_row."""
    row = {}
    for key, value in fuel_log.to_dict().items():
        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return row


FIELD_DOCS = {
    "id": "unique id",
    "vehicle_id": "vehicle refuelled",
    "day": "day of the refuelling",
    "liters": "litres of fuel",
    "price_per_liter": "price paid per litre",
    "distance": "distance since the last refuelling, in the odometer unit",
}
FIELD_TYPES = {
    "id": "id",
    "vehicle_id": "ref",
    "day": "date",
    "liters": "float",
    "price_per_liter": "money",
    "distance": "float",
}


def describe_fields() -> str:
    """One line per field: name, type and meaning (docs/records.md is built from it)."""
    return "\n".join(
        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()
    )


def parse_row_safe(row: dict[str, str]) -> tuple[FuelLog | None, str | None]:
    """(record, None) for a good row, (None, message) for a bad one."""
    try:
        return parse_row(row), None
    except KeyError as exc:
        return None, f"missing column {exc.args[0]}"
    except ValueError as exc:
        return None, str(exc)
