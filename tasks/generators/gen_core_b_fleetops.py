# ruff: noqa: E501 - generated-code templates read better unwrapped
"""Write the `fleetops` repositories behind the large core-b tasks (b13, b14, b15).

fleetops is a fleet-management library: one module per record kind in models/, store/,
services/ and reports/, shared helpers in util/, a CLI, docs and tests. Most of it is written
from per-kind field tables (so the repository is large yet consistent); the logic that the
tasks' issues are about is written by hand below. Each task gets the correct code with its
issue's defect put back in by exact string replacements, which the oracle undoes.

Deterministic: no clock, no randomness. Usage:
    python tasks/generators/gen_core_b_fleetops.py [TASKS_CORE_DIR]   (default: tasks/core)
It rewrites only the repo/ directories of the three tasks; task.yaml, oracle.yaml and the
hidden tests are written by hand.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import fleetops_cross
import fleetops_more


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # text | int | float | money | date | bool | ref:<entity> | choice:a|b|c
    doc: str


@dataclass(frozen=True)
class Entity:
    name: str  # snake_case, e.g. fuel_log
    prefix: str  # id prefix, e.g. FUE
    doc: str
    fields: tuple[Field, ...]

    @property
    def cls(self) -> str:
        return "".join(p.capitalize() for p in self.name.split("_"))

    @property
    def plural(self) -> str:
        return self.name + ("es" if self.name.endswith(("s", "x")) else "s")


def F(name: str, kind: str, doc: str) -> Field:  # noqa: N802 - a table-building shorthand
    return Field(name, kind, doc)


ENTITIES: tuple[Entity, ...] = (
    Entity("depot", "DEP", "a site where vehicles are parked and serviced", (
        F("name", "text", "display name"),
        F("city", "text", "city the depot is in"),
        F("region", "choice:north|south|east|west", "sales region"),
        F("bays", "int", "number of service bays"),
        F("opened", "date", "date the depot opened"),
    )),
    Entity("vehicle", "VEH", "a truck or van of the fleet", (
        F("plate", "text", "registration plate"),
        F("make", "text", "manufacturer"),
        F("year", "int", "model year"),
        F("depot_id", "ref:depot", "home depot"),
        F("odometer_unit", "choice:km|mi", "unit the odometer counts in"),
        F("capacity_kg", "float", "payload capacity in kilograms"),
        F("active", "bool", "false once the vehicle is retired"),
    )),
    Entity("driver", "DRV", "a person licensed to drive fleet vehicles", (
        F("name", "text", "full name"),
        F("license_class", "choice:B|C|CE", "driving licence class"),
        F("depot_id", "ref:depot", "depot the driver reports to"),
        F("hired", "date", "hiring date"),
        F("hourly_rate", "money", "pay per hour"),
        F("active", "bool", "false once the driver left"),
    )),
    Entity("customer", "CUS", "a company that books shipments", (
        F("name", "text", "company name"),
        F("segment", "choice:retail|industrial|public", "market segment"),
        F("city", "text", "billing city"),
        F("credit_limit", "money", "unpaid invoices allowed at most"),
    )),
    Entity("route", "RTE", "a planned sequence of stops", (
        F("name", "text", "route name"),
        F("depot_id", "ref:depot", "depot the route starts from"),
        F("distance_km", "float", "planned length in kilometres"),
        F("kind", "choice:urban|regional|longhaul", "kind of route"),
    )),
    Entity("stop", "STP", "a place a route visits", (
        F("route_id", "ref:route", "route the stop belongs to"),
        F("sequence", "int", "position on the route, from 1"),
        F("customer_id", "ref:customer", "customer served at the stop"),
        F("window_minutes", "int", "length of the delivery window"),
    )),
    Entity("trip", "TRP", "one drive of a route by a driver and vehicle", (
        F("route_id", "ref:route", "route driven"),
        F("driver_id", "ref:driver", "driver"),
        F("vehicle_id", "ref:vehicle", "vehicle"),
        F("day", "date", "day of the trip"),
        F("distance", "float", "distance driven, in the vehicle's odometer unit"),
        F("status", "choice:planned|done|cancelled", "trip status"),
    )),
    Entity("fuel_log", "FUE", "one refuelling of a vehicle", (
        F("vehicle_id", "ref:vehicle", "vehicle refuelled"),
        F("day", "date", "day of the refuelling"),
        F("liters", "float", "litres of fuel"),
        F("price_per_liter", "money", "price paid per litre"),
        F("distance", "float", "distance since the last refuelling, in the odometer unit"),
    )),
    Entity("maintenance", "MNT", "a workshop job on a vehicle", (
        F("vehicle_id", "ref:vehicle", "vehicle serviced"),
        F("depot_id", "ref:depot", "depot whose workshop did the job"),
        F("day", "date", "day of the job"),
        F("kind", "choice:service|repair|recall", "kind of job"),
        F("labour_hours", "float", "hours of labour"),
        F("cost", "money", "total cost"),
    )),
    Entity("supplier", "SUP", "a company that sells parts", (
        F("name", "text", "company name"),
        F("country", "text", "country code"),
        F("lead_days", "int", "usual delivery time in days"),
    )),
    Entity("part", "PRT", "a spare part kept in stock", (
        F("name", "text", "part name"),
        F("supplier_id", "ref:supplier", "usual supplier"),
        F("unit_price", "money", "price per unit"),
        F("stock", "int", "units in stock"),
        F("category", "choice:engine|brakes|body|electrical", "part category"),
    )),
    Entity("tire", "TIR", "a tyre fitted to a vehicle", (
        F("vehicle_id", "ref:vehicle", "vehicle the tyre is fitted to"),
        F("position", "choice:FL|FR|RL|RR", "wheel position"),
        F("fitted", "date", "day the tyre was fitted"),
        F("tread_mm", "float", "remaining tread depth in millimetres"),
    )),
    Entity("inspection", "INS", "a safety inspection of a vehicle", (
        F("vehicle_id", "ref:vehicle", "vehicle inspected"),
        F("day", "date", "day of the inspection"),
        F("result", "choice:pass|minor|fail", "outcome"),
        F("inspector", "text", "name of the inspector"),
    )),
    Entity("incident", "INC", "an accident or damage report", (
        F("vehicle_id", "ref:vehicle", "vehicle involved"),
        F("driver_id", "ref:driver", "driver involved"),
        F("day", "date", "day of the incident"),
        F("severity", "choice:low|medium|high", "severity"),
        F("damage", "money", "estimated damage"),
    )),
    Entity("shift", "SHF", "a driver's working shift", (
        F("driver_id", "ref:driver", "driver"),
        F("day", "date", "day of the shift"),
        F("hours", "float", "hours worked"),
        F("overtime", "bool", "paid at the overtime rate"),
    )),
    Entity("shipment", "SHP", "goods carried for a customer", (
        F("customer_id", "ref:customer", "customer who booked it"),
        F("trip_id", "ref:trip", "trip that carries it"),
        F("weight_kg", "float", "weight in kilograms"),
        F("status", "choice:booked|loaded|delivered", "shipment status"),
    )),
    Entity("invoice", "INV", "a bill sent to a customer", (
        F("customer_id", "ref:customer", "customer billed"),
        F("day", "date", "invoice date"),
        F("amount", "money", "amount billed"),
        F("paid", "bool", "true once paid"),
    )),
    Entity("toll", "TOL", "a road toll paid on a trip", (
        F("trip_id", "ref:trip", "trip the toll was paid on"),
        F("day", "date", "day the toll was paid"),
        F("amount", "money", "amount paid"),
        F("road", "text", "tolled road"),
    )),
)
BY_NAME = {e.name: e for e in ENTITIES}


# --------------------------------------------------------------------------- sample values


def sample(entity: Entity, field: Field, n: int) -> object:
    """A deterministic valid value for record number n (1-based) of an entity."""
    kind = field.kind
    if kind.startswith("ref:"):
        return f"{BY_NAME[kind[4:]].prefix}-{(n - 1) % 3 + 1:04d}"
    if kind.startswith("choice:"):
        options = kind[7:].split("|")
        return options[(n - 1) % len(options)]
    if kind == "text":
        return f"{field.name.replace('_', ' ').title()} {n}"
    if kind == "int":
        return {"year": 2015 + n, "sequence": n}.get(field.name, 3 * n + 1)
    if kind in ("float", "money"):
        return round(10.5 * n + 0.25, 2)
    if kind == "date":
        return f"2024-0{(n - 1) % 9 + 1}-1{n % 10}"
    if kind == "bool":
        return n % 4 != 0
    raise ValueError(kind)


# --------------------------------------------------------------------------- fixed files

README = """\
# fleetops

Fleet-management toolkit of the Northwind Haulage operations team: depots, vehicles,
drivers, routes, trips, fuel, maintenance, parts, inspections, incidents, shifts,
shipments, invoices and tolls.

## Layout

- `fleetops/models/`: one dataclass per record kind, with `validate()`, `to_dict()`,
  `from_dict()` and `parse_row()` (from CSV text).
- `fleetops/store/`: in-memory stores, one per record kind, on top of `store/base.py`.
- `fleetops/services/`: business rules (creating records, totals, groupings).
- `fleetops/reports/`: tables for the CLI (`reports/base.py` renders them).
- `fleetops/util/`: money, units, dates, text, validation, CSV helpers.
- `fleetops/cli/`: the `python -m fleetops` command line (see docs/cli.md).

## Conventions

- Money is held as float amounts in the records and summed in integer cents
  (`util/money.py`), so totals never drift.
- Distances on trips and fuel logs are in the vehicle's odometer unit (`km` or `mi`);
  services convert to kilometres with `util/units.py` before comparing vehicles.
- Dates are ISO `YYYY-MM-DD` strings; months are `YYYY-MM`.

## Tests

    python -m unittest discover -s tests -t .
"""

DOCS_CLI = """\
# fleetops command line

    python -m fleetops --data DIR COMMAND ...

`DIR` holds one CSV file per record kind (`vehicles.csv`, `fuel_logs.csv`, ...), with a
header row naming the fields.

## Commands

- `list KIND`: print every record of a kind, one per line.
- `report fuel [--month YYYY-MM]`: fuel cost per depot and efficiency per vehicle.
- `report trips`: trips, distance and distinct routes per driver.
- `report KIND`: the summary table of any other kind (counts per choice field, totals).

Exit codes: 0 on success, 2 on bad input (unknown kind, unreadable file, invalid record).
"""

DOCS_ARCH = """\
# Architecture

Records flow one way: CSV rows -> `models.<kind>.parse_row` -> `validate()` ->
`store.<kind>_store` -> `services` -> `reports` -> CLI output.

Stores know nothing about business rules; services know nothing about output; reports
never compute totals themselves but ask the services, so the CLI and the library agree.

## Fuel

`services/fuel_log_service.py` prices each refuelling in cents (`liters * price_per_liter`,
rounded to the nearest cent by `util.money.to_cents`) and sums per depot through the
vehicle's `depot_id`. Efficiency is kilometres per litre: a fuel log's `distance` is in the
vehicle's odometer unit and is converted to kilometres first.

## Trips

`services/trip_service.py` computes per-driver statistics over all trips with status
`done`: number of trips, total kilometres and the distinct routes driven. Data sets of
100k trips are normal, so the statistics are computed in one pass.
"""

ERRORS = '''\
"""Exceptions raised by fleetops; the CLI turns them into exit code 2."""


class FleetError(Exception):
    """Base class of every fleetops error."""


class ValidationError(FleetError):
    """A record field has a wrong type or value; the message names the field."""


class NotFoundError(FleetError):
    """A record id that no store holds."""


class DuplicateError(FleetError):
    """A record id that a store already holds."""
'''

UTIL_INIT = '"""Shared helpers: money, units, dates, text, validation, CSV."""\n'

MONEY = '''\
"""Money: amounts are floats in records, sums are integer cents."""

from __future__ import annotations

from collections.abc import Iterable


def to_cents(amount: float) -> int:
    """An amount in cents, rounded to the nearest cent (2.675 -> 268 is not promised:
    floats cannot hold 2.675 exactly)."""
    return round(amount * 100)


def from_cents(cents: int) -> float:
    return cents / 100


def sum_cents(amounts: Iterable[float]) -> int:
    """The exact cent total of several amounts (each rounded once, then added)."""
    return sum(to_cents(a) for a in amounts)


def format_money(cents: int, symbol: str = "") -> str:
    """1234567 -> '12,345.67' (with an optional currency symbol in front)."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{symbol}{whole:,}.{frac:02d}"


def split_cents(cents: int, parts: int) -> list[int]:
    """Split cents into parts that differ by at most one cent and add up exactly."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    base, extra = divmod(cents, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]
'''

UNITS = '''\
"""Unit conversions used when comparing vehicles with different odometers."""

from __future__ import annotations

KM_PER_MILE = 1.609344
LITERS_PER_US_GALLON = 3.785411784


def miles_to_km(miles: float) -> float:
    return miles * KM_PER_MILE


def km_to_miles(km: float) -> float:
    return km / KM_PER_MILE


def to_km(distance: float, unit: str) -> float:
    """A distance in kilometres, from the unit an odometer counts in ('km' or 'mi')."""
    if unit == "km":
        return distance
    if unit == "mi":
        return miles_to_km(distance)
    raise ValueError(f"unknown distance unit {unit!r} (use 'km' or 'mi')")


def liters_to_gallons(liters: float) -> float:
    return liters / LITERS_PER_US_GALLON


def kg_to_tonnes(kg: float) -> float:
    return kg / 1000
'''

DATES = '''\
"""ISO dates as strings: validation, months and ranges (never the clock)."""

from __future__ import annotations

import datetime as _dt


def parse_date(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValueError(f"not an ISO date (YYYY-MM-DD): {text!r}") from None


def is_date(text: object) -> bool:
    if not isinstance(text, str):
        return False
    try:
        parse_date(text)
    except ValueError:
        return False
    return True


def month_of(day: str) -> str:
    """'2024-03-15' -> '2024-03'."""
    parse_date(day)
    return day[:7]


def in_range(day: str, start: str | None, end: str | None) -> bool:
    """True if start <= day <= end; a missing bound is open."""
    if start is not None and day < start:
        return False
    if end is not None and day > end:
        return False
    return True


def days_between(first: str, last: str) -> int:
    return (parse_date(last) - parse_date(first)).days
'''

TEXT = '''\
"""Plain-text helpers for tables and messages."""

from __future__ import annotations


def pad(text: str, width: int, align: str = "left") -> str:
    if align == "right":
        return text.rjust(width)
    if align == "center":
        return text.center(width)
    return text.ljust(width)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def title_of(name: str) -> str:
    """'fuel_log' -> 'Fuel log'."""
    return name.replace("_", " ").capitalize()


def truncate(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(width - 3, 0)] + "..."
'''

VALIDATION = '''\
"""Field checks shared by every model; each raises ValidationError naming the field."""

from __future__ import annotations

from fleetops.errors import ValidationError
from fleetops.util.dates import is_date


def require_id(value: object, prefix: str, where: str) -> None:
    if not isinstance(value, str) or not value.startswith(prefix + "-"):
        raise ValidationError(f"{where} must look like {prefix}-0001, got {value!r}")


def require_text(value: object, where: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{where} must be non-empty text, got {value!r}")


def require_int(value: object, where: str, minimum: int = 0) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValidationError(f"{where} must be an integer >= {minimum}, got {value!r}")


def require_number(value: object, where: str, minimum: float = 0.0) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise ValidationError(f"{where} must be a number >= {minimum}, got {value!r}")


def require_date(value: object, where: str) -> None:
    if not is_date(value):
        raise ValidationError(f"{where} must be an ISO date YYYY-MM-DD, got {value!r}")


def require_bool(value: object, where: str) -> None:
    if not isinstance(value, bool):
        raise ValidationError(f"{where} must be true or false, got {value!r}")


def require_choice(value: object, choices: tuple[str, ...], where: str) -> None:
    if value not in choices:
        raise ValidationError(f"{where} must be one of {', '.join(choices)}, got {value!r}")


def parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes"):
        return True
    if lowered in ("0", "false", "no", ""):
        return False
    raise ValidationError(f"not a boolean: {text!r} (use true or false)")
'''

CSVIO = '''\
"""Reading record CSV files (one file per kind, header row first)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from fleetops.errors import FleetError, ValidationError

T = TypeVar("T")


def read_rows(path: Path) -> Iterator[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            yield from csv.DictReader(f)
    except OSError as exc:
        raise FleetError(f"cannot read {path}: {exc.strerror}") from None


def load_records(path: Path, parse: Callable[[dict[str, str]], T]) -> list[T]:
    """Parse every row; a bad row raises ValidationError naming the file and line."""
    records = []
    for line, row in enumerate(read_rows(path), start=2):
        try:
            records.append(parse(row))
        except (KeyError, ValueError) as exc:
            raise ValidationError(f"{path}:{line}: {exc}") from None
    return records
'''

STORE_BASE = '''\
"""The in-memory store every record kind uses."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from fleetops.errors import DuplicateError, NotFoundError

R = TypeVar("R")
{matches_base}

class InMemoryStore(Generic[R]):
    """Records by id, in insertion order. Subclasses set `kind` and add queries."""

    kind = "record"

    def __init__(self, records: Iterable[R] = ()) -> None:
        self._records: dict[str, R] = {{}}
        for record in records:
            self.add(record)

    def add(self, record: R) -> R:
        record_id = record.id  # type: ignore[attr-defined]
        if record_id in self._records:
            raise DuplicateError(f"{{self.kind}} {{record_id}} already exists")
        record.validate()  # type: ignore[attr-defined]
        self._records[record_id] = record
        return record

    def get(self, record_id: str) -> R:
        try:
            return self._records[record_id]
        except KeyError:
            raise NotFoundError(f"no {{self.kind}} with id {{record_id}}") from None

    def has(self, record_id: str) -> bool:
        return record_id in self._records

    def remove(self, record_id: str) -> R:
        record = self.get(record_id)
        del self._records[record_id]
        return record

    def all(self) -> list[R]:
        return list(self._records.values())

    def __iter__(self) -> Iterator[R]:
        return iter(self._records.values())

    def __len__(self) -> int:
        return len(self._records)

    def find(self, **filters: Any) -> list[R]:
        """Records whose fields equal every given filter value."""
        return [r for r in self._records.values() if {matches_call}(r, filters)]
'''

MATCHES_FN = '''\
def {name}(record: object, filters: dict[str, Any]) -> bool:
    """True if every filter names a field of the record whose value equals it."""
    for key, wanted in filters.items():
        if not hasattr(record, key):
            raise AttributeError(f"{{type(record).__name__}} has no field {{key!r}}")
        if getattr(record, key) != wanted:
            return False
    return True
'''

REPORT_BASE = '''\
"""A small table type the CLI prints; reports build these, never strings directly."""

from __future__ import annotations

from dataclasses import dataclass, field

from fleetops.util.text import pad


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    align: dict[str, str] = field(default_factory=dict)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: row has {len(cells)} cells, not {len(self.columns)}")
        self.rows.append([str(c) for c in cells])

    def render(self) -> str:
        widths = [len(c) for c in self.columns]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]
        def line(cells: list[str]) -> str:
            return "  ".join(
                pad(c, w, self.align.get(col, "left"))
                for c, w, col in zip(cells, widths, self.columns)
            ).rstrip()
        out = [self.title, line(self.columns), line(["-" * w for w in widths])]
        out += [line(row) for row in self.rows]
        return "\\n".join(out)
'''


# --------------------------------------------------------------------------- generated code


def py_type(field: Field) -> str:
    return {"int": "int", "float": "float", "money": "float", "bool": "bool"}.get(
        field.kind, "str"
    )


def choices_const(field: Field) -> str:
    return field.name.upper() + "_CHOICES"


def model_module(e: Entity) -> str:
    out = [f'"""{e.cls} records: {e.doc}."""', "", "from __future__ import annotations", ""]
    out += ["from dataclasses import asdict, dataclass", ""]
    out += ["from fleetops.errors import ValidationError", "from fleetops.util import validation as v"]
    out += ["", f'PREFIX = "{e.prefix}"']
    for f in e.fields:
        if f.kind.startswith("choice:"):
            opts = ", ".join(f'"{o}"' for o in f.kind[7:].split("|"))
            out.append(f"{choices_const(f)} = ({opts})")
    names = ", ".join(f'"{f.name}"' for f in e.fields)
    out += [f'FIELDS = ("id", {names})', "", "", "@dataclass", f"class {e.cls}:"]
    out += [f'    """{e.doc[0].upper() + e.doc[1:]}.', "", "    Fields:", "        id: unique id"]
    out += [f"        {f.name}: {f.doc}" for f in e.fields]
    out += ['    """', "", "    id: str"]
    out += [f"    {f.name}: {py_type(f)}" for f in e.fields]
    out += ["", "    def validate(self) -> None:", '        """Raise ValidationError if a field is wrong."""']
    out.append(f'        v.require_id(self.id, PREFIX, "{e.name}.id")')
    for f in e.fields:
        where = f'"{e.name}.{f.name}"'
        k = f.kind
        if k == "text":
            out.append(f"        v.require_text(self.{f.name}, {where})")
        elif k == "int":
            minimum = {"year": 1950, "sequence": 1}.get(f.name, 0)
            out.append(f"        v.require_int(self.{f.name}, {where}, minimum={minimum})")
        elif k in ("float", "money"):
            out.append(f"        v.require_number(self.{f.name}, {where})")
        elif k == "date":
            out.append(f"        v.require_date(self.{f.name}, {where})")
        elif k == "bool":
            out.append(f"        v.require_bool(self.{f.name}, {where})")
        elif k.startswith("choice:"):
            out.append(f"        v.require_choice(self.{f.name}, {choices_const(f)}, {where})")
        elif k.startswith("ref:"):
            ref = BY_NAME[k[4:]]
            out.append(f'        v.require_id(self.{f.name}, "{ref.prefix}", {where})')
    out += ["", "    def to_dict(self) -> dict:", "        return asdict(self)", ""]
    out += model_methods(e)
    out += ["    @classmethod", f"    def from_dict(cls, data: dict) -> {e.cls}:"]
    out += ["        missing = [k for k in FIELDS if k not in data]", "        if missing:"]
    out += ['            raise ValidationError(f"' + e.name + ' is missing fields: {\', \'.join(missing)}")']
    out += ["        unknown = sorted(set(data) - set(FIELDS))", "        if unknown:"]
    out += ['            raise ValidationError(f"' + e.name + ' has unknown fields: {\', \'.join(unknown)}")']
    out += ["        record = cls(**{k: data[k] for k in FIELDS})", "        record.validate()"]
    out += ["        return record", "", "", f"def parse_row(row: dict[str, str]) -> {e.cls}:"]
    out += [f'    """A {e.name} from a CSV row of text (see docs/cli.md)."""', f"    record = {e.cls}("]
    out.append('        id=row["id"].strip(),')
    for f in e.fields:
        k = f.kind
        cell = f'row["{f.name}"]'
        if k == "int":
            conv = f"int({cell})"
        elif k in ("float", "money"):
            conv = f"float({cell})"
        elif k == "bool":
            conv = f"v.parse_bool({cell})"
        else:
            conv = f"{cell}.strip()"
        out.append(f"        {f.name}={conv},")
    out += ["    )", "    record.validate()", "    return record", "", ""]
    out += [f"def to_row({e.name}: {e.cls}) -> dict[str, str]:"]
    out += ['    """The inverse of parse_row."""', "    row = {}"]
    out += [f"    for key, value in {e.name}.to_dict().items():"]
    out += ['        row[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)']
    out += ["    return row", ""]
    out += model_tail(e)
    return "\n".join(out)


def sort_field(e: Entity) -> str:
    dates = [f.name for f in e.fields if f.kind == "date"]
    return dates[0] if dates else e.fields[0].name


def model_methods(e: Entity) -> list[str]:
    key = sort_field(e)
    out = ["    def __str__(self) -> str:"]
    out += ['        shown = ", ".join(f"{k}={getattr(self, k)}" for k in FIELDS[1:])']
    out += [f'        return f"{e.cls} {{self.id}}: {{shown}}"', ""]
    out += [f"    def copy_with(self, **changes: object) -> {e.cls}:"]
    out += ['        """A validated copy with some fields changed; the id cannot change."""']
    out += ['        if "id" in changes:']
    out += [f'            raise ValidationError("the id of a {e.name} cannot change")']
    out += ["        data = self.to_dict()", "        data.update(changes)"]
    out += [f"        return {e.cls}.from_dict(data)", ""]
    out += [f"    def diff(self, other: {e.cls}) -> dict[str, tuple[object, object]]:"]
    out += ['        """Fields whose values differ from other\'s, as (mine, theirs)."""']
    out += ["        return {"]
    out += ["            k: (getattr(self, k), getattr(other, k))"]
    out += ["            for k in FIELDS"]
    out += ["            if getattr(self, k) != getattr(other, k)"]
    out += ["        }", ""]
    out += ["    def sort_key(self) -> tuple:"]
    out += [f'        """Order {e.plural} by {key}, then id."""']
    out += [f"        return (self.{key}, self.id)", ""]
    return out


def model_tail(e: Entity) -> list[str]:
    out = ["", "FIELD_DOCS = {", '    "id": "unique id",']
    out += [f'    "{f.name}": "{f.doc}",' for f in e.fields]
    out += ["}", "FIELD_TYPES = {", '    "id": "id",']
    out += [f'    "{f.name}": "{f.kind.split(":")[0]}",' for f in e.fields]
    out += ["}", "", "", "def describe_fields() -> str:"]
    out += ['    """One line per field: name, type and meaning (docs/records.md is built from it)."""']
    out += ['    return "\\n".join(']
    out += ['        f"{name:<16} {FIELD_TYPES[name]:<7} {doc}" for name, doc in FIELD_DOCS.items()']
    out += ["    )", "", ""]
    out += [f"def parse_row_safe(row: dict[str, str]) -> tuple[{e.cls} | None, str | None]:"]
    out += ['    """(record, None) for a good row, (None, message) for a bad one."""']
    out += ["    try:", "        return parse_row(row), None", "    except KeyError as exc:"]
    out += ['        return None, f"missing column {exc.args[0]}"']
    out += ["    except ValueError as exc:", "        return None, str(exc)", ""]
    return out


def store_module(e: Entity, dup_matches: bool) -> str:
    out = [f'"""The store of {e.plural}."""', "", "from __future__ import annotations", ""]
    if dup_matches:
        out += ["from typing import Any", ""]
    out += [f"from fleetops.models.{e.name} import FIELDS, {e.cls}"]
    out += ["from fleetops.store.base import InMemoryStore", ""]
    if dup_matches:
        out += ["", MATCHES_FN.format(name="_matches").rstrip(), ""]
    out += ["", f"class {e.cls}Store(InMemoryStore[{e.cls}]):", f'    kind = "{e.name}"']
    for f in e.fields:
        if f.kind.startswith("ref:"):
            out += ["", f"    def by_{f.name.removesuffix('_id')}(self, {f.name}: str) -> list[{e.cls}]:"]
            if dup_matches:
                out.append(f'        return [r for r in self if _matches(r, {{"{f.name}": {f.name}}})]')
            else:
                out.append(f"        return self.find({f.name}={f.name})")
        elif f.kind.startswith("choice:"):
            out += ["", f"    def with_{f.name}(self, {f.name}: str) -> list[{e.cls}]:"]
            if dup_matches:
                out.append(f'        return [r for r in self if _matches(r, {{"{f.name}": {f.name}}})]')
            else:
                out.append(f"        return self.find({f.name}={f.name})")
        elif f.kind == "date":
            out += ["", f"    def between(self, start: str | None, end: str | None) -> list[{e.cls}]:"]
            out.append(f'        """{e.cls} records whose {f.name} is within [start, end]."""')
            out.append(f"        return [r for r in self if in_range(r.{f.name}, start, end)]")
        elif f.kind == "bool" and f.name == "active":
            out += ["", f"    def active(self) -> list[{e.cls}]:"]
            if dup_matches:
                out.append('        return [r for r in self if _matches(r, {"active": True})]')
            else:
                out.append("        return self.find(active=True)")
    out += store_methods(e)
    if dup_matches:
        out += ["", "    def where(self, **filters: Any) -> list[" + e.cls + "]:"]
        out.append('        """Records matching every filter (field=value)."""')
        out.append("        return [r for r in self if _matches(r, filters)]")
    text = "\n".join(out) + "\n"
    if "in_range(" in text:
        text = text.replace(
            "from fleetops.store.base import InMemoryStore\n",
            "from fleetops.store.base import InMemoryStore\nfrom fleetops.util.dates import in_range\n",
        )
    return text


def store_methods(e: Entity) -> list[str]:
    key = sort_field(e)
    out = ["", "    def ids(self) -> list[str]:", "        return [r.id for r in self]"]
    out += ["", f"    def sorted_by(self, field: str, reverse: bool = False) -> list[{e.cls}]:"]
    out += [f'        """All {e.plural} ordered by one field (ties by id)."""']
    out += ["        if field not in FIELDS:"]
    out += [f'            raise AttributeError(f"{e.cls} has no field {{field!r}}")']
    out += ["        return sorted(self, key=lambda r: (getattr(r, field), r.id), reverse=reverse)"]
    out += ["", f"    def page(self, offset: int, limit: int) -> list[{e.cls}]:"]
    out += ['        """A slice of the records in insertion order, for paged listings."""']
    out += ["        if offset < 0 or limit < 1:"]
    out += ['            raise ValueError("offset must be >= 0 and limit >= 1")']
    out += ["        return self.all()[offset : offset + limit]"]
    out += ["", f"    def latest(self) -> {e.cls} | None:"]
    out += [f'        """The {e.name} with the greatest {key} (None if empty)."""']
    out += ["        records = self.all()", "        if not records:", "            return None"]
    out += ["        return max(records, key=lambda r: r.sort_key())"]
    out += ["", f"    def replace_all(self, records: list[{e.cls}]) -> None:"]
    out += ['        """Swap the whole content; nothing changes if a record is invalid."""']
    out += [f"        fresh = {e.cls}Store(records)", "        self._records = fresh._records"]
    return out


def service_module(e: Entity, more: bool = False) -> str:
    numeric = [f for f in e.fields if f.kind in ("float", "money", "int") and f.name not in ("year", "sequence")]
    choices = [f for f in e.fields if f.kind.startswith("choice:")]
    refs = [f for f in e.fields if f.kind.startswith("ref:")]
    dates = [f for f in e.fields if f.kind == "date"]
    out = [f'"""Business rules for {e.plural}."""', "", "from __future__ import annotations", ""]
    out += ["from collections import Counter, defaultdict", "from collections.abc import Iterable", ""]
    out += ["from fleetops.errors import NotFoundError, ValidationError"]
    out += [f"from fleetops.models.{e.name} import FIELDS, {e.cls}, parse_row_safe, to_row"]
    if any(f.kind == "money" for f in e.fields):
        out += ["from fleetops.util import money"]
    if dates:
        out += ["from fleetops.util.dates import in_range, month_of"]
    out += [f"from fleetops.store.{e.name}_store import {e.cls}Store", "", ""]
    out += [f"def create_{e.name}(store: {e.cls}Store, data: dict, **refs: object) -> {e.cls}:"]
    out += [f'    """Build, validate and store a {e.name}; refs are stores to check references in."""']
    out += [f"    record = {e.cls}.from_dict(data)"]
    for f in refs:
        key = f.kind[4:]
        out += [f'    {key}_store = refs.get("{key}s")']
        out += [f"    if {key}_store is not None and not {key}_store.has(record.{f.name}):"]
        out += [f'        raise NotFoundError(f"{e.name} {{record.id}}: no {key} {{record.{f.name}}}")']
    out += ["    return store.add(record)", "", ""]
    out += [f"def update_{e.name}(store: {e.cls}Store, record_id: str, **changes: object) -> {e.cls}:"]
    out += ['    """Change fields of a stored record; the result must still validate."""']
    out += ["    unknown = sorted(set(changes) - set(FIELDS))", "    if unknown:"]
    out += [f'        raise ValidationError(f"{e.name} has no fields {{unknown}}")']
    out += ['    if "id" in changes:', f'        raise ValidationError("the id of a {e.name} cannot change")']
    out += ["    old = store.remove(record_id)", "    data = old.to_dict()", "    data.update(changes)"]
    out += ["    try:", f"        new = {e.cls}.from_dict(data)", "    except ValidationError:"]
    out += ["        store.add(old)", "        raise", "    return store.add(new)", ""]
    for f in choices:
        out += ["", f"def count_by_{f.name}(records: Iterable[{e.cls}]) -> dict[str, int]:"]
        out += [f'    """How many {e.plural} have each {f.name}, in the order of the choices."""']
        out += [f"    counts = Counter(r.{f.name} for r in records)"]
        opts = f.kind[7:].split("|")
        out += [f"    return {{k: counts.get(k, 0) for k in {tuple(opts)!r}}}", ""]
    for f in refs:
        key = f.name.removesuffix("_id")
        out += ["", f"def group_by_{key}(records: Iterable[{e.cls}]) -> dict[str, list[{e.cls}]]:"]
        out += [f'    """{e.cls} records per {key} id, in first-seen order."""']
        out += [f"    groups: dict[str, list[{e.cls}]] = defaultdict(list)"]
        out += ["    for r in records:", f"        groups[r.{f.name}].append(r)", "    return dict(groups)", ""]
    for f in numeric:
        if f.kind == "money":
            out += ["", f"def total_{f.name}_cents(records: Iterable[{e.cls}]) -> int:"]
            out += [f'    """The exact total {f.name} in cents."""']
            out += [f"    return money.sum_cents(r.{f.name} for r in records)", ""]
        else:
            out += ["", f"def total_{f.name}(records: Iterable[{e.cls}]) -> float:"]
            out += [f"    return sum(r.{f.name} for r in records)", ""]
            out += ["", f"def average_{f.name}(records: Iterable[{e.cls}]) -> float | None:"]
            out += [f'    """The mean {f.name}, or None when there are no records."""']
            out += ["    data = list(records)", "    if not data:", "        return None"]
            out += [f"    return sum(r.{f.name} for r in data) / len(data)", ""]
    out += service_extras(e)
    for f in dates[:1]:
        out += ["", f"def in_period(records: Iterable[{e.cls}], start: str | None, end: str | None) -> list[{e.cls}]:"]
        out += [f"    return [r for r in records if in_range(r.{f.name}, start, end)]", ""]
        out += ["", f"def per_month(records: Iterable[{e.cls}]) -> dict[str, int]:"]
        out += [f'    """Number of {e.plural} per month (YYYY-MM), months in order."""']
        out += [f"    counts = Counter(month_of(r.{f.name}) for r in records)"]
        out += ["    return dict(sorted(counts.items()))", ""]
    if more:
        out += fleetops_more.service_more(e)
    text = "\n".join(out).rstrip() + "\n"
    if more:
        text = fleetops_more.extend_service_imports(text, e)
    return with_index(text)


def with_index(text: str) -> str:
    """Extend a module docstring with an index of its public functions."""
    names = [line[4:].split("(")[0] for line in text.splitlines() if line.startswith("def ")]
    names = [n for n in names if not n.startswith("_")]
    first, rest = text.split("\n", 1)
    index = "\n".join(f"- {n}()" for n in names)
    return first[:-3] + "\n\nFunctions:\n\n" + index + '\n"""\n' + rest


def service_extras(e: Entity) -> list[str]:
    numeric = [f for f in e.fields if f.kind in ("float", "money", "int")]
    choices = [f for f in e.fields if f.kind.startswith("choice:")]
    refs = [f for f in e.fields if f.kind.startswith("ref:")]
    out: list[str] = []
    for f in numeric:
        out += ["", f"def {f.name}_stats(records: Iterable[{e.cls}]) -> dict[str, float] | None:"]
        out += [f'    """count, min, max and mean of {f.name}; None when there are no records."""']
        out += [f"    values = [r.{f.name} for r in records]", "    if not values:", "        return None"]
        out += ["    return {"]
        out += ['        "count": len(values),', '        "min": min(values),']
        out += ['        "max": max(values),', '        "mean": sum(values) / len(values),', "    }", ""]
        out += ["", f"def top_by_{f.name}(records: Iterable[{e.cls}], n: int = 5) -> list[{e.cls}]:"]
        out += [f'    """The n {e.plural} with the largest {f.name} (ties by id)."""']
        out += [f"    return sorted(records, key=lambda r: (-r.{f.name}, r.id))[:n]", ""]
    for f in choices:
        opts = tuple(f.kind[7:].split("|"))
        out += ["", f"def only_{f.name}(records: Iterable[{e.cls}], value: str) -> list[{e.cls}]:"]
        out += [f"    if value not in {opts!r}:"]
        out += [f'        raise ValidationError(f"{f.name} must be one of {", ".join(opts)}, got {{value!r}}")']
        out += [f"    return [r for r in records if r.{f.name} == value]", ""]
    for f in refs:
        key = f.name.removesuffix("_id")
        out += ["", f"def distinct_{key}s(records: Iterable[{e.cls}]) -> list[str]:"]
        out += [f'    """The {key} ids the records refer to, sorted, each once."""']
        out += [f"    return sorted({{r.{f.name} for r in records}})", ""]
    out += ["", f"def validate_all(records: Iterable[{e.cls}]) -> list[str]:"]
    out += ['    """One message per invalid record (an empty list when all are valid)."""']
    out += ["    problems = []", "    for r in records:", "        try:", "            r.validate()"]
    out += ["        except ValidationError as exc:", '            problems.append(f"{r.id}: {exc}")']
    out += ["    return problems", ""]
    out += ["", f"def export_rows(records: Iterable[{e.cls}]) -> list[dict[str, str]]:"]
    out += ["    return [to_row(r) for r in records]", ""]
    out += ["", f"def import_rows(store: {e.cls}Store, rows: Iterable[dict[str, str]]) -> list[str]:"]
    out += ['    """Add every good row to the store; return one message per rejected row."""']
    out += ["    problems = []", "    for n, row in enumerate(rows, start=1):"]
    out += ["        record, problem = parse_row_safe(row)", "        if record is None:"]
    out += ['            problems.append(f"row {n}: {problem}")', "            continue"]
    out += ["        if store.has(record.id):"]
    out += ['            problems.append(f"row {n}: duplicate id {record.id}")', "            continue"]
    out += ["        store.add(record)", "    return problems", ""]
    return out


def report_module(e: Entity, more: bool = False) -> str:
    choices = [f for f in e.fields if f.kind.startswith("choice:")]
    money_fields = [f for f in e.fields if f.kind == "money"]
    out = [f'"""The summary table of {e.plural}."""', "", "from __future__ import annotations", ""]
    out += ["from collections.abc import Iterable", ""]
    out += [f"from fleetops.models.{e.name} import {e.cls}"]
    out += ["from fleetops.reports.base import Table", f"from fleetops.services import {e.name}_service as svc"]
    out += [f"from fleetops.store.{e.name}_store import {e.cls}Store"]
    if money_fields:
        out += ["from fleetops.util.money import format_money"]
    out += ["", "", f"def {e.name}_summary(store: {e.cls}Store) -> Table:"]
    out += ['    """One row per fact: record count, counts per choice, money totals."""']
    out += [f'    table = Table("{e.cls} summary", ["what", "value"], align={{"value": "right"}})']
    out += ['    records = store.all()', f'    table.add("{e.plural}", len(records))']
    for f in choices:
        out += [f"    for choice, count in svc.count_by_{f.name}(records).items():"]
        out += [f'        table.add(f"{f.name}={{choice}}", count)']
    for f in money_fields:
        out += [f'    table.add("total {f.name}", format_money(svc.total_{f.name}_cents(records)))']
    out += ["    return table", ""]
    out += report_extras(e)
    if more:
        out += fleetops_more.report_more(e)
    return "\n".join(out)


def report_extras(e: Entity) -> list[str]:
    numeric = [f for f in e.fields if f.kind in ("float", "money", "int")]
    dates = [f for f in e.fields if f.kind == "date"]
    cols = ", ".join(f'"{f.name}"' for f in e.fields)
    out = ["", f"def {e.name}_detail(records: Iterable[{e.cls}], limit: int | None = None) -> Table:"]
    out += [f'    """Every field of each {e.name}, one row per record (at most limit rows)."""']
    out += [f'    table = Table("{e.cls} records", ["id", {cols}])']
    out += ["    for n, r in enumerate(records):", "        if limit is not None and n >= limit:"]
    out += ["            break", f"        table.add(r.id, {', '.join('r.' + f.name for f in e.fields)})"]
    out += ["    return table", ""]
    if dates:
        out += ["", f"def {e.name}_by_month(records: Iterable[{e.cls}]) -> Table:"]
        out += [f'    table = Table("{e.cls} records per month", ["month", "count"])']
        out += ["    for month, count in svc.per_month(records).items():"]
        out += ["        table.add(month, count)", "    return table", ""]
    if numeric:
        f = numeric[0]
        out += ["", f"def {e.name}_top(records: Iterable[{e.cls}], n: int = 5) -> Table:"]
        out += [f'    """The n {e.plural} with the largest {f.name}."""']
        out += [f'    table = Table("Top {e.plural} by {f.name}", ["id", "{f.name}"])']
        out += [f"    for r in svc.top_by_{f.name}(records, n):"]
        out += [f"        table.add(r.id, r.{f.name})", "    return table", ""]
    return out


def test_module(e: Entity, more: bool = False) -> str:
    def literal(n: int) -> str:
        items = [f'"id": "{e.prefix}-{n:04d}"'] + [
            f'"{f.name}": {sample(e, f, n)!r}' for f in e.fields
        ]
        return "{" + ", ".join(items) + "}"

    out = ["import unittest", "", "from fleetops.errors import DuplicateError, ValidationError"]
    out += [f"from fleetops.models.{e.name} import {e.cls}, parse_row, to_row"]
    out += [f"from fleetops.reports import {e.name}_report as report"]
    out += [f"from fleetops.services import {e.name}_service as svc"]
    out += [f"from fleetops.store.{e.name}_store import {e.cls}Store", ""]
    out += ["", "def make(n):", "    data = {}"]
    for n in (1, 2, 3, 4):
        out.append(f"    data[{n}] = {literal(n)}")
    out += [f"    return {e.cls}.from_dict(data[n])", "", ""]
    out += [f"class Test{e.cls}(unittest.TestCase):", "    def test_round_trip_row(self):"]
    out += ["        record = make(1)", "        self.assertEqual(parse_row(to_row(record)), record)", ""]
    out += ["    def test_bad_id(self):", "        record = make(2)", '        record.id = "X-1"']
    out += ["        with self.assertRaises(ValidationError):", "            record.validate()", ""]
    out += ["    def test_store_rejects_duplicates(self):", f"        store = {e.cls}Store([make(1)])"]
    out += ["        with self.assertRaises(DuplicateError):", "            store.add(make(1))", ""]
    first = e.fields[0]
    new_value = sample(e, first, 3)
    out += ["    def test_update(self):", f"        store = {e.cls}Store([make(1), make(2)])"]
    out += [f'        svc.update_{e.name}(store, "{e.prefix}-0002", {first.name}={new_value!r})']
    out += [f'        self.assertEqual(store.get("{e.prefix}-0002").{first.name}, {new_value!r})', ""]
    for f in e.fields:
        if f.kind.startswith("choice:"):
            out += [f"    def test_count_by_{f.name}(self):"]
            out += ["        counts = svc.count_by_" + f.name + "([make(1), make(2), make(3)])"]
            out += ["        self.assertEqual(sum(counts.values()), 3)", ""]
            break
    out += test_extras(e)
    if more:
        out += fleetops_more.test_more(e, sample)
    return "\n".join(out).rstrip() + "\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n"


def test_extras(e: Entity) -> list[str]:
    numeric = [f for f in e.fields if f.kind in ("float", "money", "int")]
    first = e.fields[0]
    other = sample(e, first, 2)
    out = ["    def test_copy_with_and_diff(self):", "        a = make(1)"]
    out += [f"        b = a.copy_with({first.name}={other!r})"]
    out += [f'        self.assertEqual(a.diff(b), {{"{first.name}": ({sample(e, first, 1)!r}, {other!r})}})']
    out += ["        with self.assertRaises(ValidationError):", '            a.copy_with(id="x")', ""]
    out += ["    def test_sorted_by_and_page(self):", f"        store = {e.cls}Store([make(3), make(1), make(2)])"]
    out += ["        self.assertEqual(len(store.sorted_by(\"id\")), 3)"]
    out += [f'        self.assertEqual(store.sorted_by("id")[0].id, "{e.prefix}-0001")']
    out += [f'        self.assertEqual(store.page(1, 5)[0].id, "{e.prefix}-0001")']
    out += ["        with self.assertRaises(ValueError):", "            store.page(-1, 5)", ""]
    out += ["    def test_export_import(self):", "        rows = svc.export_rows([make(1), make(2)])"]
    out += [f"        store = {e.cls}Store()", "        problems = svc.import_rows(store, rows + [rows[0], {}])"]
    out += ["        self.assertEqual(len(store), 2)", "        self.assertEqual(len(problems), 2)", ""]
    if numeric:
        f = numeric[0]
        values = sorted(sample(e, f, n) for n in (1, 2, 3))
        out += [f"    def test_{f.name}_stats(self):"]
        out += [f"        stats = svc.{f.name}_stats([make(1), make(2), make(3)])"]
        out += [f'        self.assertEqual((stats["min"], stats["max"]), ({values[0]!r}, {values[-1]!r}))']
        out += [f"        self.assertIsNone(svc.{f.name}_stats([]))", ""]
    for f in e.fields:
        if f.kind.startswith("ref:"):
            key = f.name.removesuffix("_id")
            out += [f"    def test_group_by_{key}(self):"]
            out += [f"        groups = svc.group_by_{key}([make(1), make(2), make(3), make(4)])"]
            out += ["        self.assertEqual(sum(len(g) for g in groups.values()), 4)"]
            out += [f"        self.assertEqual(sorted(groups), svc.distinct_{key}s(groups[k][0] for k in groups))", ""]
        if f.kind.startswith("choice:"):
            out += [f"    def test_only_{f.name}(self):"]
            out += [f"        picked = svc.only_{f.name}([make(1), make(2)], {sample(e, f, 1)!r})"]
            out += [f'        self.assertEqual([r.id for r in picked], ["{e.prefix}-0001"])']
            out += ["        with self.assertRaises(ValidationError):"]
            out += [f'            svc.only_{f.name}([make(1)], "no-such-{f.name}")', ""]
    out += ["    def test_validate_all(self):", "        bad = make(2)", '        bad.id = "nope"']
    out += ["        problems = svc.validate_all([make(1), bad])"]
    out += ["        self.assertEqual(len(problems), 1)", '        self.assertTrue(problems[0].startswith("nope: "))', ""]
    out += ["    def test_reports_render(self):", f"        store = {e.cls}Store([make(1), make(2)])"]
    out += [f"        text = report.{e.name}_summary(store).render()"]
    out += [f'        self.assertIn("{e.plural}", text)']
    out += [f"        self.assertEqual(len(report.{e.name}_detail(store.all(), limit=1).rows), 1)", ""]
    return out


# --------------------------------------------------------------------------- hand-written logic

FUEL_EXTRA = '''

def fill_cost_cents(log: FuelLog) -> int:
    """What one refuelling cost, in cents."""
    return money.to_cents(log.liters * log.price_per_liter)


def cost_by_depot(logs: Iterable[FuelLog], vehicles: VehicleStore) -> dict[str, int]:
    """Fuel cost in cents per depot id (through each vehicle's home depot), depots sorted."""
    totals: dict[str, int] = defaultdict(int)
    for log in logs:
        depot = vehicles.get(log.vehicle_id).depot_id
        totals[depot] += fill_cost_cents(log)
    return dict(sorted(totals.items()))


def km_per_liter(logs: Iterable[FuelLog], vehicles: VehicleStore) -> dict[str, float]:
    """Kilometres per litre per vehicle id, over the given logs (vehicles sorted).

    A log's distance is in its vehicle's odometer unit; it is converted to kilometres
    before dividing, so vehicles with miles odometers compare fairly.
    """
    km: dict[str, float] = defaultdict(float)
    liters: dict[str, float] = defaultdict(float)
    for log in logs:
        unit = vehicles.get(log.vehicle_id).odometer_unit
        km[log.vehicle_id] += units.to_km(log.distance, unit)
        liters[log.vehicle_id] += log.liters
    return {vid: km[vid] / liters[vid] for vid in sorted(km) if liters[vid] > 0}
'''

FUEL_REPORT = '''\
"""The fuel report: cost per depot and efficiency per vehicle (docs/cli.md)."""

from __future__ import annotations

from fleetops.reports.base import Table
from fleetops.services import fuel_log_service as fuel
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.store.vehicle_store import VehicleStore
from fleetops.util.dates import month_of
from fleetops.util.money import format_money


def fuel_report(
    logs: FuelLogStore, vehicles: VehicleStore, month: str | None = None
) -> list[Table]:
    """Two tables: cost per depot and km per litre per vehicle, for one month or all."""
    selected = [log for log in logs if month is None or month_of(log.day) == month]
    suffix = f" ({month})" if month else ""
    costs = Table("Fuel cost per depot" + suffix, ["depot", "cost"], align={"cost": "right"})
    for depot, cents in fuel.cost_by_depot(selected, vehicles).items():
        costs.add(depot, format_money(cents))
    efficiency = Table(
        "Fuel efficiency" + suffix, ["vehicle", "km/l"], align={"km/l": "right"}
    )
    for vehicle, kml in fuel.km_per_liter(selected, vehicles).items():
        efficiency.add(vehicle, f"{kml:.2f}")
    return [costs, efficiency]
'''

TRIP_EXTRA = '''

@dataclass(frozen=True)
class DriverStats:
    driver_id: str
    trips: int
    km: float
    routes: tuple[str, ...]  # distinct route ids, in the order first driven


def driver_stats(
    trips: TripStore, drivers: Iterable[Driver], vehicles: VehicleStore
) -> list[DriverStats]:
    """Per driver (in the order given): finished trips, kilometres and distinct routes."""
    done: dict[str, list[Trip]] = defaultdict(list)
    for trip in trips:
        if trip.status == "done":
            done[trip.driver_id].append(trip)
    unit_of = {v.id: v.odometer_unit for v in vehicles}
    stats = []
    for driver in drivers:
        mine = done.get(driver.id, [])
        routes = tuple(dict.fromkeys(t.route_id for t in mine))
        km = sum(units.to_km(t.distance, unit_of[t.vehicle_id]) for t in mine)
        stats.append(DriverStats(driver.id, len(mine), round(km, 3), routes))
    return stats
'''

TRIP_EXTRA_SLOW = '''

@dataclass(frozen=True)
class DriverStats:
    driver_id: str
    trips: int
    km: float
    routes: tuple[str, ...]  # distinct route ids, in the order first driven


def driver_stats(
    trips: TripStore, drivers: Iterable[Driver], vehicles: VehicleStore
) -> list[DriverStats]:
    """Per driver (in the order given): finished trips, kilometres and distinct routes."""
    stats = []
    for driver in drivers:
        mine = trips.find(driver_id=driver.id, status="done")
        routes: list[str] = []
        for trip in mine:
            if trip.route_id not in routes:
                routes.append(trip.route_id)
        km = 0.0
        for trip in mine:
            vehicle = vehicles.find(id=trip.vehicle_id)[0]
            km += units.to_km(trip.distance, vehicle.odometer_unit)
        stats.append(DriverStats(driver.id, len(mine), round(km, 3), tuple(routes)))
    return stats
'''

TRIP_REPORT = '''\
"""The trips report: per-driver statistics (docs/cli.md)."""

from __future__ import annotations

from fleetops.reports.base import Table
from fleetops.services.trip_service import driver_stats
from fleetops.store.driver_store import DriverStore
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore


def trips_report(trips: TripStore, drivers: DriverStore, vehicles: VehicleStore) -> Table:
    table = Table(
        "Trips per driver", ["driver", "trips", "km", "routes"],
        align={"trips": "right", "km": "right", "routes": "right"},
    )
    for s in driver_stats(trips, drivers.all(), vehicles):
        table.add(s.driver_id, s.trips, f"{s.km:.1f}", len(s.routes))
    return table
'''

CLI_MAIN = '''\
"""python -m fleetops --data DIR COMMAND (see docs/cli.md)."""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

from fleetops.errors import FleetError
from fleetops.util.csvio import load_records

KINDS = ({kinds})


def load_store(data: Path, kind: str):
    """The store of one kind, filled from DIR/<kind>s.csv (empty if the file is absent)."""
    model = importlib.import_module(f"fleetops.models.{{kind}}")
    store_mod = importlib.import_module(f"fleetops.store.{{kind}}_store")
    cls_name = "".join(p.capitalize() for p in kind.split("_")) + "Store"
    store = getattr(store_mod, cls_name)()
    path = data / f"{{kind}}s.csv"
    if path.exists():
        for record in load_records(path, model.parse_row):
            store.add(record)
    return store


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fleetops")
    parser.add_argument("--data", type=Path, default=Path("data"), help="CSV directory")
    sub = parser.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="print every record of a kind")
    ls.add_argument("kind", choices=KINDS)
    rep = sub.add_parser("report", help="print a report")
    rep.add_argument("what", help="fuel, trips, or a record kind")
    rep.add_argument("--month", help="YYYY-MM (fuel report only)")
    return parser


def run(args: argparse.Namespace, out) -> None:
    if args.command == "list":
        for record in load_store(args.data, args.kind):
            print(record, file=out)
        return
    if args.what == "fuel":
        from fleetops.reports.fuel_report import fuel_report

        tables = fuel_report(
            load_store(args.data, "fuel_log"), load_store(args.data, "vehicle"), args.month
        )
        print("\\n\\n".join(t.render() for t in tables), file=out)
    elif args.what == "trips":
        from fleetops.reports.trips_by_driver import trips_report

        table = trips_report(
            load_store(args.data, "trip"),
            load_store(args.data, "driver"),
            load_store(args.data, "vehicle"),
        )
        print(table.render(), file=out)
    elif args.what in KINDS:
        report = importlib.import_module(f"fleetops.reports.{{args.what}}_report")
        summary = getattr(report, f"{{args.what}}_summary")
        print(summary(load_store(args.data, args.what)).render(), file=out)
    else:
        raise FleetError(f"unknown report {{args.what!r}} (use fuel, trips or a record kind)")


def main(argv: list[str] | None = None, out=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        run(args, out or sys.stdout)
    except FleetError as exc:
        print(f"fleetops: {{exc}}", file=sys.stderr)
        return 2
    return 0
'''

TEST_FUEL = '''\
import unittest

from fleetops.models.fuel_log import FuelLog
from fleetops.models.vehicle import Vehicle
from fleetops.reports.fuel_report import fuel_report
from fleetops.services import fuel_log_service as fuel
from fleetops.store.fuel_log_store import FuelLogStore
from fleetops.store.vehicle_store import VehicleStore


def vehicle(n, depot, unit):
    return Vehicle(f"VEH-{n:04d}", f"AB-{n}", "Volvo", 2020, depot, unit, 9000.0, True)


class TestFuel(unittest.TestCase):
    def setUp(self):
        self.vehicles = VehicleStore([vehicle(1, "DEP-0001", "km")])
        self.logs = FuelLogStore([
            FuelLog("FUE-0001", "VEH-0001", "2024-03-02", 50.0, 2.0, 600.0),
            FuelLog("FUE-0002", "VEH-0001", "2024-04-09", 40.0, 2.5, 525.0),
        ])

    def test_cost_by_depot(self):
        self.assertEqual(fuel.cost_by_depot(self.logs, self.vehicles), {"DEP-0001": 20000})

    def test_km_per_liter(self):
        self.assertEqual(fuel.km_per_liter(self.logs, self.vehicles), {"VEH-0001": 12.5})

    def test_report_month(self):
        costs, _ = fuel_report(self.logs, self.vehicles, "2024-03")
        self.assertEqual(costs.rows, [["DEP-0001", "100.00"]])


if __name__ == "__main__":
    unittest.main()
'''

TEST_TRIPS = '''\
import unittest

from fleetops.models.driver import Driver
from fleetops.models.trip import Trip
from fleetops.models.vehicle import Vehicle
from fleetops.services.trip_service import driver_stats
from fleetops.store.trip_store import TripStore
from fleetops.store.vehicle_store import VehicleStore


class TestDriverStats(unittest.TestCase):
    def test_small_fleet(self):
        vehicles = VehicleStore(
            [Vehicle("VEH-0001", "AB-1", "MAN", 2019, "DEP-0001", "km", 9000.0, True)]
        )
        drivers = [
            Driver("DRV-0001", "Ana", "C", "DEP-0001", "2020-01-01", 20.0, True),
            Driver("DRV-0002", "Bo", "C", "DEP-0001", "2021-01-01", 21.0, True),
        ]
        trips = TripStore([
            Trip("TRP-0001", "RTE-0002", "DRV-0001", "VEH-0001", "2024-01-02", 100.0, "done"),
            Trip("TRP-0002", "RTE-0001", "DRV-0001", "VEH-0001", "2024-01-03", 50.0, "done"),
            Trip("TRP-0003", "RTE-0002", "DRV-0001", "VEH-0001", "2024-01-04", 70.0, "done"),
            Trip("TRP-0004", "RTE-0001", "DRV-0002", "VEH-0001", "2024-01-04", 80.0, "planned"),
        ])
        ana, bo = driver_stats(trips, drivers, vehicles)
        self.assertEqual((ana.trips, ana.km, ana.routes), (3, 220.0, ("RTE-0002", "RTE-0001")))
        self.assertEqual((bo.trips, bo.km, bo.routes), (0, 0.0, ()))


if __name__ == "__main__":
    unittest.main()
'''


# --------------------------------------------------------------------------- assembly


def build(
    root: Path, entities: tuple[Entity, ...], dup_matches: bool, slow_trips: bool,
    extended: bool = False,
) -> None:
    """Write one repository; extended adds the richer toolkit of fleetops_more.py and the
    cross-kind modules (data sets, integrity checks, running costs, table export)."""
    if root.exists():
        shutil.rmtree(root)
    files: dict[str, str] = {}
    names = {e.name for e in entities}
    files["README.md"] = README
    files["docs/cli.md"] = DOCS_CLI
    files["docs/architecture.md"] = DOCS_ARCH
    files["docs/records.md"] = records_doc(entities)
    files["fleetops/__init__.py"] = '"""fleetops: fleet-management toolkit."""\n\n__version__ = "2.3.0"\n'
    files["fleetops/__main__.py"] = "import sys\n\nfrom fleetops.cli.main import main\n\nsys.exit(main())\n"
    files["fleetops/errors.py"] = ERRORS
    files["fleetops/util/__init__.py"] = UTIL_INIT
    files["fleetops/util/money.py"] = MONEY
    files["fleetops/util/units.py"] = UNITS
    files["fleetops/util/dates.py"] = DATES
    files["fleetops/util/text.py"] = TEXT
    files["fleetops/util/validation.py"] = VALIDATION
    files["fleetops/util/csvio.py"] = CSVIO
    files["fleetops/models/__init__.py"] = '"""One dataclass per record kind."""\n'
    files["fleetops/store/__init__.py"] = '"""In-memory stores, one per record kind."""\n'
    files["fleetops/services/__init__.py"] = '"""Business rules, one module per record kind."""\n'
    files["fleetops/reports/__init__.py"] = '"""Report tables for the CLI."""\n'
    files["fleetops/reports/base.py"] = REPORT_BASE
    files["fleetops/cli/__init__.py"] = '"""The python -m fleetops command line."""\n'
    kinds = ", ".join(f'"{e.name}"' for e in entities) + ("," if len(entities) == 1 else "")
    files["fleetops/cli/main.py"] = CLI_MAIN.format(kinds=kinds)
    if dup_matches:
        base = STORE_BASE.format(matches_base="", matches_call="_matches")
        base = base.replace(
            "from fleetops.errors import DuplicateError, NotFoundError\n",
            "from fleetops.errors import DuplicateError, NotFoundError\n"
            "from fleetops.store.filters import _matches\n",
        )
        files["fleetops/store/filters.py"] = (
            '"""Field filters for the base store."""\n\nfrom __future__ import annotations\n\n'
            "from typing import Any\n\n\n" + MATCHES_FN.format(name="_matches")
        )
    else:
        base = STORE_BASE.format(
            matches_base="\n\n" + MATCHES_FN.format(name="matches_filters"),
            matches_call="matches_filters",
        )
    files["fleetops/store/base.py"] = base
    files["tests/__init__.py"] = ""
    for e in entities:
        more = extended and fleetops_more.wants_more(e.name)
        model = model_module(e)
        store = store_module(e, dup_matches)
        if more:
            model = fleetops_more.extend_model(model, e)
            store = fleetops_more.extend_store(store, e)
        files[f"fleetops/models/{e.name}.py"] = model
        files[f"fleetops/store/{e.name}_store.py"] = store
        service = service_module(e, more)
        if e.name == "fuel_log":
            service = service.replace(
                "from fleetops.util import money\n",
                "from fleetops.store.vehicle_store import VehicleStore\n"
                "from fleetops.util import money, units\n",
            ) + FUEL_EXTRA
        if e.name == "trip":
            service = service.replace(
                "from collections.abc import Iterable\n",
                "from collections.abc import Iterable\nfrom dataclasses import dataclass\n",
            ).replace(
                "from fleetops.models.trip import FIELDS, Trip\n",
                "from fleetops.models.driver import Driver\n"
                "from fleetops.models.trip import FIELDS, Trip\n",
            ).replace(
                "from fleetops.store.trip_store import TripStore\n",
                "from fleetops.store.trip_store import TripStore\n"
                "from fleetops.store.vehicle_store import VehicleStore\n"
                "from fleetops.util import units\n",
            ) + (TRIP_EXTRA_SLOW if slow_trips else TRIP_EXTRA)
        files[f"fleetops/services/{e.name}_service.py"] = service
        files[f"fleetops/reports/{e.name}_report.py"] = report_module(e, more)
        files[f"tests/test_{e.name}.py"] = test_module(e, more)
    if {"fuel_log", "vehicle"} <= names:
        files["fleetops/reports/fuel_report.py"] = FUEL_REPORT
        files["tests/test_fuel_report.py"] = TEST_FUEL
    if {"trip", "driver", "vehicle"} <= names:
        files["fleetops/reports/trips_by_driver.py"] = TRIP_REPORT
        files["tests/test_trip_stats.py"] = TEST_TRIPS
    if extended:
        files.update(fleetops_cross.FILES)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def records_doc(entities: tuple[Entity, ...]) -> str:
    out = ["# Record kinds", "", "One CSV file per kind in the data directory (`<kind>s.csv`)."]
    out += ["Every record has an `id` made of the kind's prefix and four digits."]
    for e in entities:
        out += ["", f"## {e.name} (`{e.prefix}-0001`)", "", f"{e.doc[0].upper() + e.doc[1:]}.", ""]
        out += ["| field | type | meaning |", "|-------|------|---------|"]
        for f in e.fields:
            kind = f.kind.replace("|", ", ")
            out.append(f"| `{f.name}` | {kind} | {f.doc} |")
        refs = [f.kind[4:] for f in e.fields if f.kind.startswith("ref:")]
        if refs:
            out += ["", "Refers to: " + ", ".join(f"`{r}`" for r in refs) + "."]
    return "\n".join(out) + "\n"


def inject(root: Path, rel: str, old: str, new: str) -> None:
    """Put a task's defect back: replace text that must occur exactly once."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise SystemExit(f"{rel}: expected one {old!r}, found {text.count(old)}")
    path.write_text(text.replace(old, new), encoding="utf-8")


SMALL = tuple(BY_NAME[n] for n in (
    "depot", "vehicle", "driver", "customer", "route", "trip", "fuel_log", "invoice",
))


def main(argv: list[str]) -> None:
    core = Path(argv[0]) if argv else Path("tasks/core")
    # b13: a refactor: every store module carries a private copy of the filter function.
    build(core / "b13-fleetops-dedupe-store-filters" / "repo", SMALL, True, False)
    # b14: two defects in different modules behind one wrong fuel report.
    b14 = core / "b14-fleetops-fuel-report-wrong" / "repo"
    build(b14, ENTITIES, False, False, extended=True)
    inject(b14, "fleetops/util/money.py", "return round(amount * 100)", "return int(amount * 100)")
    inject(
        b14, "fleetops/services/fuel_log_service.py",
        "km[log.vehicle_id] += units.to_km(log.distance, unit)",
        'km[log.vehicle_id] += (\n'
        '            units.km_to_miles(log.distance) if unit == "mi" else log.distance\n'
        "        )",
    )
    # b15: per-driver statistics that rescan every trip for every driver.
    build(core / "b15-fleetops-slow-trip-report" / "repo", ENTITIES, False, True, extended=True)


if __name__ == "__main__":
    main(sys.argv[1:])
