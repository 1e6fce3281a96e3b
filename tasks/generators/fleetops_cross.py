# ruff: noqa: E501 - repository source kept as written
"""Cross-kind modules of the large fleetops repositories (b14, b15), written by hand.

integrity_service checks rules across record kinds (references, stop numbering, credit
limits, working hours, stock); reports/export renders report tables as CSV, Markdown and
JSON. Both come with their tests. gen_core_b_fleetops.build(extended=True) writes them.
"""

from __future__ import annotations

EXPORT = r'''"""Report tables in other formats: CSV, Markdown and JSON (Table.render() is plain text).

Spreadsheets read the CSV, wikis take the Markdown and scripts the JSON; every format keeps
the title, the columns in order and each cell's text exactly as the plain table shows it.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

from fleetops.errors import FleetError
from fleetops.reports.base import Table


def to_csv(table: Table) -> str:
    """The columns as a header row, then one row per table row (the title is left out)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    return buffer.getvalue()


def from_csv(text: str, title: str) -> Table:
    """The inverse of to_csv; a row whose cell count differs from the header's is an error."""
    reader = csv.reader(io.StringIO(text))
    try:
        columns = next(reader)
    except StopIteration:
        raise FleetError(f"{title}: the CSV text is empty (expected a header row)") from None
    table = Table(title, columns)
    for line, row in enumerate(reader, start=2):
        if len(row) != len(columns):
            raise FleetError(f"{title}: CSV line {line} has {len(row)} cells, not {len(columns)}")
        table.add(*row)
    return table


def _markdown_cell(text: str) -> str:
    # A pipe would end the cell early; a newline would end the row.
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(table: Table) -> str:
    """A Markdown heading and pipe table; right-aligned columns get a `--:` rule."""
    rules = ["---:" if table.align.get(c) == "right" else "---" for c in table.columns]
    lines = [f"### {table.title}", ""]
    lines.append("| " + " | ".join(_markdown_cell(c) for c in table.columns) + " |")
    lines.append("| " + " | ".join(rules) + " |")
    for row in table.rows:
        lines.append("| " + " | ".join(_markdown_cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


def to_json(table: Table) -> str:
    """{"title", "columns", "rows"} with each row an object keyed by column name."""
    rows = [dict(zip(table.columns, row)) for row in table.rows]
    return json.dumps({"title": table.title, "columns": table.columns, "rows": rows}, indent=2)


FORMATS: dict[str, Callable[[Table], str]] = {
    "text": Table.render,
    "csv": to_csv,
    "markdown": to_markdown,
    "json": to_json,
}


def render_as(table: Table, fmt: str) -> str:
    """The table in one of FORMATS; an unknown format names the ones there are."""
    try:
        render = FORMATS[fmt]
    except KeyError:
        known = ", ".join(FORMATS)
        raise FleetError(f"unknown table format {fmt!r} (use one of {known})") from None
    return render(table)


def render_all(tables: list[Table], fmt: str) -> str:
    """Several tables in one document: blank-line separated, or one JSON list."""
    if fmt == "json":
        return "[\n" + ",\n".join(to_json(t) for t in tables) + "\n]"
    return "\n\n".join(render_as(t, fmt).rstrip("\n") for t in tables) + "\n"
'''

INTEGRITY_SERVICE = r'''"""Checks across record kinds: references between stores, and rules that no single record
can break on its own (stop numbering, credit limits, working hours, stock levels).

Every check returns messages that start with the kind and id they are about, sorted, so two
runs over the same data give the same list. check_all() runs every check it has stores for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

from fleetops.models.invoice import Invoice
from fleetops.models.part import Part
from fleetops.models.shift import Shift
from fleetops.models.stop import Stop
from fleetops.services import (
    incident_service,
    inspection_service,
    invoice_service,
    part_service,
    route_service,
    shift_service,
    shipment_service,
    stop_service,
    tire_service,
    toll_service,
)
from fleetops.store.customer_store import CustomerStore
from fleetops.util.money import format_money, sum_cents

# kind -> the service function that checks that kind's references against other stores.
REFERENCE_CHECKS: dict[str, Callable[..., list[str]]] = {
    "incident": incident_service.check_references,
    "inspection": inspection_service.check_references,
    "invoice": invoice_service.check_references,
    "part": part_service.check_references,
    "route": route_service.check_references,
    "shift": shift_service.check_references,
    "shipment": shipment_service.check_references,
    "stop": stop_service.check_references,
    "tire": tire_service.check_references,
    "toll": toll_service.check_references,
}

MAX_SHIFT_HOURS_PER_DAY = 12.0
LOW_STOCK = 2


def dangling_references(stores: dict[str, object]) -> list[str]:
    """Every reference, in every given store, to a record that no given store holds.

    stores maps a kind ("tire", "vehicle", ...) to its store; a referenced kind that is not
    given is not checked (a tire's vehicle is only checked when "vehicle" is given).
    """
    by_plural = {f"{kind}s": store for kind, store in stores.items()}
    problems = []
    for kind in sorted(stores):
        check = REFERENCE_CHECKS.get(kind)
        if check is not None:
            problems += [f"{kind} {message}" for message in check(stores[kind], **by_plural)]
    return problems


def stop_sequence_gaps(stops: Iterable[Stop]) -> list[str]:
    """Routes whose stops are not numbered 1, 2, 3, ... without gaps or repeats."""
    problems = []
    by_route = stop_service.group_by_route(stops)
    for route_id in sorted(by_route):
        numbers = sorted(s.sequence for s in by_route[route_id])
        expected = list(range(1, len(numbers) + 1))
        if numbers != expected:
            problems.append(f"route {route_id}: stops numbered {numbers}, expected {expected}")
    return problems


def over_credit_limit(invoices: Iterable[Invoice], customers: CustomerStore) -> list[str]:
    """Customers whose unpaid invoices add up to more than their credit limit.

    Sums are exact cents; invoices of customers the store does not know are left to
    dangling_references().
    """
    unpaid: dict[str, list[float]] = defaultdict(list)
    for invoice in invoices:
        if not invoice.paid:
            unpaid[invoice.customer_id].append(invoice.amount)
    problems = []
    for customer_id in sorted(unpaid):
        if not customers.has(customer_id):
            continue
        owed = sum_cents(unpaid[customer_id])
        limit = sum_cents([customers.get(customer_id).credit_limit])
        if owed > limit:
            problems.append(
                f"customer {customer_id}: unpaid {format_money(owed)} "
                f"is over the credit limit {format_money(limit)}"
            )
    return problems


def long_working_days(
    shifts: Iterable[Shift], max_hours: float = MAX_SHIFT_HOURS_PER_DAY
) -> list[str]:
    """Drivers who worked more than max_hours on one day, over all their shifts."""
    hours: dict[tuple[str, str], float] = defaultdict(float)
    for shift in shifts:
        hours[(shift.driver_id, shift.day)] += shift.hours
    return [
        f"driver {driver_id}: {total:g} hours on {day} (at most {max_hours:g})"
        for (driver_id, day), total in sorted(hours.items())
        if total > max_hours
    ]


def low_stock(parts: Iterable[Part], minimum: int = LOW_STOCK) -> list[str]:
    """Parts with fewer than minimum units in stock, to reorder from their supplier."""
    return [
        f"part {p.id}: {p.stock} in stock (reorder from {p.supplier_id})"
        for p in sorted(parts, key=lambda p: p.id)
        if p.stock < minimum
    ]


def check_all(stores: dict[str, object]) -> list[str]:
    """Every check whose stores are given, in a fixed order; an empty list means clean data."""
    problems = dangling_references(stores)
    if "stop" in stores:
        problems += stop_sequence_gaps(stores["stop"])  # type: ignore[arg-type]
    if "invoice" in stores and "customer" in stores:
        problems += over_credit_limit(stores["invoice"], stores["customer"])  # type: ignore[arg-type]
    if "shift" in stores:
        problems += long_working_days(stores["shift"])  # type: ignore[arg-type]
    if "part" in stores:
        problems += low_stock(stores["part"])  # type: ignore[arg-type]
    return problems
'''

TEST_EXPORT = r'''import json
import unittest

from fleetops.errors import FleetError
from fleetops.reports import export
from fleetops.reports.base import Table


def sample_table():
    table = Table("Parts | stock", ["part", "units"], align={"units": "right"})
    table.add("PRT-0001", 4)
    table.add("brake pad, front", 12)
    return table


class TestExport(unittest.TestCase):
    def test_csv_round_trip(self):
        table = sample_table()
        text = export.to_csv(table)
        self.assertEqual(text.splitlines()[0], "part,units")
        self.assertIn('"brake pad, front",12', text)
        back = export.from_csv(text, table.title)
        self.assertEqual(back.rows, table.rows)
        self.assertEqual(back.columns, table.columns)

    def test_from_csv_errors(self):
        with self.assertRaises(FleetError):
            export.from_csv("", "empty")
        with self.assertRaises(FleetError) as caught:
            export.from_csv("a,b\n1,2\n3\n", "short")
        self.assertIn("line 3", str(caught.exception))

    def test_markdown(self):
        lines = export.to_markdown(sample_table()).splitlines()
        self.assertEqual(lines[0], "### Parts | stock")
        self.assertEqual(lines[2], "| part | units |")
        self.assertEqual(lines[3], "| --- | ---: |")
        self.assertEqual(len(lines), 6)
        table = Table("t", ["a"])
        table.add("x|y")
        self.assertIn("x\\|y", export.to_markdown(table))

    def test_json(self):
        data = json.loads(export.to_json(sample_table()))
        self.assertEqual(data["columns"], ["part", "units"])
        self.assertEqual(data["rows"][1], {"part": "brake pad, front", "units": "12"})

    def test_render_as_and_all(self):
        table = sample_table()
        self.assertEqual(export.render_as(table, "text"), table.render())
        with self.assertRaises(FleetError) as caught:
            export.render_as(table, "xlsx")
        self.assertIn("markdown", str(caught.exception))
        both = export.render_all([table, table], "json")
        self.assertEqual(len(json.loads(both)), 2)
        self.assertEqual(export.render_all([table, table], "csv").count("part,units"), 2)


if __name__ == "__main__":
    unittest.main()
'''

TEST_INTEGRITY = r'''import unittest

from fleetops.models.customer import Customer
from fleetops.models.invoice import Invoice
from fleetops.models.part import Part
from fleetops.models.shift import Shift
from fleetops.models.stop import Stop
from fleetops.models.tire import Tire
from fleetops.models.vehicle import Vehicle
from fleetops.services import integrity_service as integrity
from fleetops.store.customer_store import CustomerStore
from fleetops.store.invoice_store import InvoiceStore
from fleetops.store.part_store import PartStore
from fleetops.store.shift_store import ShiftStore
from fleetops.store.stop_store import StopStore
from fleetops.store.supplier_store import SupplierStore
from fleetops.store.tire_store import TireStore
from fleetops.store.vehicle_store import VehicleStore


def customers():
    return CustomerStore([Customer("CUS-0001", "Acme", "retail", "Lyon", 500.0)])


def invoices(*amounts_paid):
    return InvoiceStore(
        Invoice(f"INV-{n:04d}", "CUS-0001", "2024-03-01", amount, paid)
        for n, (amount, paid) in enumerate(amounts_paid, start=1)
    )


def stops(*numbers):
    return StopStore(
        Stop(f"STP-{n:04d}", "RTE-0001", seq, "CUS-0001", 30) for n, seq in enumerate(numbers, 1)
    )


class TestIntegrity(unittest.TestCase):
    def test_dangling_references_only_for_given_kinds(self):
        tires = TireStore([
            Tire("TIR-0001", "VEH-0001", "FL", "2024-01-02", 8.5),
            Tire("TIR-0002", "VEH-0009", "FR", "2024-01-02", 8.5),
        ])
        vehicles = VehicleStore([Vehicle("VEH-0001", "AB-1", "DAF", 2020, "DEP-0001", "km", 1.0, True)])
        self.assertEqual(integrity.dangling_references({"tire": tires}), [])
        problems = integrity.dangling_references({"tire": tires, "vehicle": vehicles})
        self.assertEqual(problems, ["tire TIR-0002: no vehicle VEH-0009"])

    def test_stop_sequence_gaps(self):
        self.assertEqual(integrity.stop_sequence_gaps(stops(2, 1, 3)), [])
        problems = integrity.stop_sequence_gaps(stops(1, 3, 3))
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("route RTE-0001: stops numbered [1, 3, 3]"))

    def test_over_credit_limit(self):
        ok = invoices((300.25, False), (400.5, True))
        self.assertEqual(integrity.over_credit_limit(ok, customers()), [])
        over = invoices((300.25, False), (250.5, False))
        problems = integrity.over_credit_limit(over, customers())
        self.assertEqual(
            problems, ["customer CUS-0001: unpaid 550.75 is over the credit limit 500.00"]
        )

    def test_long_working_days(self):
        shifts = ShiftStore([
            Shift("SHF-0001", "DRV-0001", "2024-03-01", 8.0, False),
            Shift("SHF-0002", "DRV-0001", "2024-03-01", 5.5, True),
            Shift("SHF-0003", "DRV-0002", "2024-03-01", 12.0, False),
        ])
        problems = integrity.long_working_days(shifts)
        self.assertEqual(problems, ["driver DRV-0001: 13.5 hours on 2024-03-01 (at most 12)"])
        self.assertEqual(integrity.long_working_days(shifts, max_hours=14), [])

    def test_low_stock_and_check_all(self):
        parts = PartStore([
            Part("PRT-0002", "Filter", "SUP-0001", 12.5, 1, "engine"),
            Part("PRT-0001", "Pad", "SUP-0001", 20.25, 9, "brakes"),
        ])
        self.assertEqual(integrity.low_stock(parts), ["part PRT-0002: 1 in stock (reorder from SUP-0001)"])
        stores = {"part": parts, "stop": stops(1, 2), "customer": customers(),
                  "invoice": invoices((10.5, False))}
        self.assertEqual(integrity.check_all(stores), integrity.low_stock(parts))
        self.assertEqual(len(integrity.check_all({"part": parts, "supplier": SupplierStore()})), 3)


if __name__ == "__main__":
    unittest.main()
'''

FILES: dict[str, str] = {
    "fleetops/reports/export.py": EXPORT,
    "fleetops/services/integrity_service.py": INTEGRITY_SERVICE,
    "tests/test_export.py": TEST_EXPORT,
    "tests/test_integrity.py": TEST_INTEGRITY,
}
