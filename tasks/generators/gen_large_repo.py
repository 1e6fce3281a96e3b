"""Write a realistic multi-module Python package for the large `core` tasks (a12-a15).

The hard tasks need repositories of ~60-120 files / 8k-15k lines, so that an agent must search
(grep, list_dir) before it reads. Writing those by hand would take days; this script writes
the repetitive layers from templates (one model, repository, service, CSV serializer and report
per entity, plus a test module) around hand-written core modules, and the task-specific
modules (where each task's bug lives) come from tasks/generators/large_repo_parts/<domain>/.
Its output is committed under tasks/core/<id>/repo/; rerun it to regenerate:

    python tasks/generators/gen_large_repo.py DOMAIN OUT_DIR

Deterministic: the same domain always gives byte-identical files.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

PARTS = Path(__file__).parent / "large_repo_parts"


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # str | int | money | date | bool | choice
    choices: tuple[str, ...] = ()
    indexed: bool = False


@dataclass(frozen=True)
class Entity:
    name: str  # CamelCase
    prefix: str  # id prefix
    doc: str
    fields: tuple[Field, ...]

    @property
    def snake(self) -> str:
        out = ""
        for i, ch in enumerate(self.name):
            out += ("_" if i and ch.isupper() else "") + ch.lower()
        return out

    @property
    def label_field(self) -> str:
        return next(f.name for f in self.fields if f.kind == "str")


def F(name: str, kind: str, *choices: str, indexed: bool = False) -> Field:  # noqa: N802
    return Field(name, kind, tuple(choices), indexed)


DOMAINS: dict[str, dict] = {
    "depot": {
        "package": "depot",
        "title": "depot: stock, orders and billing for a regional wholesaler",
        "entities": [
            Entity("Product", "PRD", "a stocked product", (
                F("name", "str"), F("sku", "str", indexed=True), F("unit_price", "money"),
                F("weight_g", "int"), F("category", "choice", "food", "drink", "household"),
                F("discontinued", "bool"))),
            Entity("Supplier", "SUP", "a company we buy from", (
                F("name", "str"), F("country", "str", indexed=True), F("lead_days", "int"),
                F("rating", "choice", "a", "b", "c"))),
            Entity("Customer", "CUS", "a shop that buys from us", (
                F("name", "str"), F("city", "str", indexed=True), F("credit_limit", "money"),
                F("segment", "choice", "retail", "horeca", "wholesale"))),
            Entity("PurchaseOrder", "PO", "an order we place with a supplier", (
                F("reference", "str", indexed=True), F("supplier_id", "str", indexed=True),
                F("ordered_on", "date"), F("amount", "money"),
                F("state", "choice", "draft", "sent", "received"))),
            Entity("SalesOrder", "SO", "an order a customer places", (
                F("reference", "str", indexed=True), F("customer_id", "str", indexed=True),
                F("ordered_on", "date"), F("amount", "money"),
                F("state", "choice", "open", "picked", "shipped", "cancelled"))),
            Entity("Shipment", "SHP", "goods leaving a warehouse", (
                F("tracking", "str", indexed=True), F("order_id", "str", indexed=True),
                F("shipped_on", "date"), F("parcels", "int"),
                F("carrier", "choice", "road", "rail", "courier"))),
            Entity("Warehouse", "WH", "a building that holds stock", (
                F("name", "str"), F("city", "str", indexed=True), F("capacity_pallets", "int"),
                F("cold_storage", "bool"))),
            Entity("Bin", "BIN", "a storage location inside a warehouse", (
                F("code", "str", indexed=True), F("warehouse_id", "str", indexed=True),
                F("max_weight_g", "int"), F("zone", "choice", "ambient", "chilled", "frozen"))),
            Entity("Carrier", "CAR", "a transport company", (
                F("name", "str"), F("phone", "str"), F("base_fee", "money"),
                F("mode", "choice", "road", "rail", "courier"))),
            Entity("Invoice", "INV", "a bill sent to a customer", (
                F("number", "str", indexed=True), F("customer_id", "str", indexed=True),
                F("issued_on", "date"), F("total", "money"),
                F("state", "choice", "draft", "sent", "paid", "void"))),
            Entity("Payment", "PAY", "money received from a customer", (
                F("reference", "str", indexed=True), F("invoice_id", "str", indexed=True),
                F("received_on", "date"), F("amount", "money"),
                F("method", "choice", "transfer", "card", "cash"))),
            Entity("ReturnNote", "RET", "goods a customer sends back", (
                F("reason", "str"), F("order_id", "str", indexed=True), F("received_on", "date"),
                F("credit", "money"), F("condition", "choice", "resellable", "damaged"))),
            Entity("PriceList", "PL", "prices agreed with a customer segment", (
                F("name", "str"), F("segment", "str", indexed=True), F("valid_from", "date"),
                F("discount_pct", "int"))),
            Entity("StockCount", "CNT", "a counted quantity of a product in a bin", (
                F("product_id", "str", indexed=True), F("bin_id", "str", indexed=True),
                F("counted_on", "date"), F("quantity", "int"))),
        ],
    },
    "clinic": {
        "package": "clinic",
        "title": "clinic: patients, appointments and billing for a group practice",
        "entities": [
            Entity("Patient", "PAT", "a registered patient", (
                F("full_name", "str"), F("postcode", "str", indexed=True),
                F("born_on", "date"), F("insurer", "choice", "public", "private", "none"),
                F("consent_sms", "bool"))),
            Entity("Practitioner", "PRA", "a doctor, nurse or therapist", (
                F("full_name", "str"), F("specialty", "str", indexed=True),
                F("hourly_rate", "money"), F("role", "choice", "doctor", "nurse", "therapist"))),
            Entity("Room", "ROOM", "a consulting room", (
                F("name", "str"), F("floor", "int"), F("site", "str", indexed=True),
                F("accessible", "bool"))),
            Entity("Appointment", "APT", "a booked visit", (
                F("reason", "str"), F("patient_id", "str", indexed=True),
                F("practitioner_id", "str", indexed=True), F("day", "date"),
                F("start_minute", "int"), F("duration_min", "int"),
                F("state", "choice", "booked", "arrived", "done", "cancelled", "no_show"))),
            Entity("Shift", "SFT", "a practitioner's working shift", (
                F("title", "str"), F("practitioner_id", "str", indexed=True), F("day", "date"),
                F("start_minute", "int"), F("end_minute", "int"))),
            Entity("Referral", "REF", "a referral to a specialist", (
                F("reason", "str"), F("patient_id", "str", indexed=True),
                F("written_on", "date"), F("urgency", "choice", "routine", "soon", "urgent"))),
            Entity("Prescription", "RX", "a prescribed medicine", (
                F("drug", "str", indexed=True), F("patient_id", "str", indexed=True),
                F("written_on", "date"), F("repeats", "int"), F("controlled", "bool"))),
            Entity("LabOrder", "LAB", "a test sent to the laboratory", (
                F("panel", "str", indexed=True), F("patient_id", "str", indexed=True),
                F("ordered_on", "date"), F("fee", "money"),
                F("state", "choice", "ordered", "collected", "resulted"))),
            Entity("LabResult", "RES", "a laboratory result", (
                F("analyte", "str", indexed=True), F("lab_order_id", "str", indexed=True),
                F("resulted_on", "date"), F("value_milli", "int"),
                F("flag", "choice", "normal", "low", "high"))),
            Entity("Invoice", "INV", "a bill for a patient or insurer", (
                F("number", "str", indexed=True), F("patient_id", "str", indexed=True),
                F("issued_on", "date"), F("total", "money"),
                F("state", "choice", "draft", "sent", "paid", "void"))),
            Entity("Payment", "PAY", "money received", (
                F("reference", "str", indexed=True), F("invoice_id", "str", indexed=True),
                F("received_on", "date"), F("amount", "money"),
                F("method", "choice", "card", "transfer", "insurer"))),
            Entity("Insurer", "INS", "an insurance company", (
                F("name", "str"), F("code", "str", indexed=True), F("copay", "money"),
                F("kind", "choice", "public", "private"))),
            Entity("Vaccination", "VAC", "a given vaccine dose", (
                F("vaccine", "str", indexed=True), F("patient_id", "str", indexed=True),
                F("given_on", "date"), F("dose", "int"))),
            Entity("Allergy", "ALG", "a recorded allergy", (
                F("substance", "str", indexed=True), F("patient_id", "str", indexed=True),
                F("noted_on", "date"), F("severity", "choice", "mild", "moderate", "severe"))),
            Entity("Note", "NOTE", "a clinical note", (
                F("summary", "str"), F("patient_id", "str", indexed=True),
                F("written_on", "date"), F("confidential", "bool"))),
            Entity("Supply", "SUPL", "a consumable kept in stock", (
                F("name", "str"), F("code", "str", indexed=True), F("unit_cost", "money"),
                F("on_hand", "int"), F("reorder_level", "int"))),
            Entity("Recall", "RCL", "a reminder to book a check-up", (
                F("reason", "str"), F("patient_id", "str", indexed=True), F("due_on", "date"),
                F("channel", "choice", "sms", "letter", "phone"))),
            Entity("Complaint", "CMP", "a complaint from a patient", (
                F("subject", "str"), F("patient_id", "str", indexed=True),
                F("received_on", "date"), F("state", "choice", "open", "answered", "closed"))),
        ],
    },
}


# --------------------------------------------------------------------------- templates


def _dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _tpl(template: str, **values: object) -> str:
    """Dedent first, then fill in: multi-line values keep the indentation they carry."""
    return _dedent(template).format(**values)


def _validation_line(f: Field) -> str:
    return {
        "str": f'        require_text(self.{f.name}, "{f.name}")',
        "int": f'        require_non_negative(self.{f.name}, "{f.name}")',
        "money": f'        require_non_negative(self.{f.name}, "{f.name}")',
        "date": f'        require_date(self.{f.name}, "{f.name}")',
        "bool": f'        require_bool(self.{f.name}, "{f.name}")',
        "choice": f'        require_choice(self.{f.name}, {f.name.upper()}_CHOICES, "{f.name}")',
    }[f.kind]


def _annotation(f: Field) -> str:
    return {"str": "str", "int": "int", "money": "int", "date": "date", "bool": "bool",
            "choice": "str"}[f.kind]


def _from_value(f: Field, src: str) -> str:
    return {
        "str": f"str({src})",
        "int": f"int({src})",
        "money": f"int({src})",
        "date": f"parse_date({src})",
        "bool": f"parse_bool({src})",
        "choice": f"str({src})",
    }[f.kind]


def _to_value(f: Field, src: str) -> str:
    return {
        "date": f"{src}.isoformat()",
        "money": f"{src}",
    }.get(f.kind, src)


def model_module(e: Entity, pkg: str) -> str:
    choice_consts = "".join(
        f"{f.name.upper()}_CHOICES = {f.choices!r}\n" for f in e.fields if f.kind == "choice"
    )
    fields = "\n".join(f"    {f.name}: {_annotation(f)}" for f in e.fields)
    checks = "\n".join(_validation_line(f) for f in e.fields)
    to_dict = "\n".join(f'            "{f.name}": {_to_value(f, "self." + f.name)},'
                        for f in e.fields)
    from_dict = "\n".join(f'            {f.name}={_from_value(f, "data[" + repr(f.name) + "]")},'
                          for f in e.fields)
    money = [f.name for f in e.fields if f.kind == "money"]
    money_method = ""
    if money:
        money_method = _dedent(f'''
            def money_total(self) -> int:
                """The sum of this record's money fields, in cents."""
                return {" + ".join("self." + m for m in money)}

        ''')
        money_method = textwrap.indent(money_method, "    ")
    dates = [f.name for f in e.fields if f.kind == "date"]
    age_method = ""
    if dates:
        age_method = textwrap.indent(_dedent(f'''
            def age_days(self, today: date) -> int:
                """Days from {dates[0]} to today (negative if {dates[0]} is in the future)."""
                return (today - self.{dates[0]}).days

        '''), "    ")
    doc_sentence = e.doc[0].upper() + e.doc[1:]
    return _tpl('''
        """{e.name}: {e.doc}."""

        from __future__ import annotations

        from dataclasses import dataclass, field
        from datetime import date
        from typing import Any

        from ..core.ids import check_id
        from ..core.parsing import parse_bool, parse_date
        from ..core.validation import (
            require_bool,
            require_choice,
            require_date,
            require_non_negative,
            require_text,
        )

        PREFIX = "{e.prefix}"
        STATUS_CHOICES = ("active", "archived")
        {choice_consts}

        @dataclass
        class {e.name}:
            """{doc_sentence}."""

            id: str
        {fields}
            status: str = "active"
            tags: list[str] = field(default_factory=list)

            def validate(self) -> None:
                """Raise ValidationError naming the first field that is wrong."""
                check_id(self.id, PREFIX)
        {checks}
                require_choice(self.status, STATUS_CHOICES, "status")
                for tag in self.tags:
                    require_text(tag, "tags")

            @property
            def is_active(self) -> bool:
                return self.status == "active"

            def archive(self) -> None:
                self.status = "archived"

            def label(self) -> str:
                return f"{{self.id}} {{self.{e.label_field}}}"

            def __str__(self) -> str:
                return f"{e.name}({{self.label()}}, {{self.status}})"

            def diff(self, other: {e.name}) -> dict[str, tuple[Any, Any]]:
                """Fields whose values differ: name -> (this value, other value)."""
                mine, theirs = self.to_dict(), other.to_dict()
                return {{k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}}

            def has_tag(self, tag: str) -> bool:
                return tag.casefold() in (t.casefold() for t in self.tags)

        {money_method}{age_method}    def to_dict(self) -> dict[str, Any]:
                return {{
                    "id": self.id,
        {to_dict}
                    "status": self.status,
                    "tags": list(self.tags),
                }}

            @classmethod
            def from_dict(cls, data: dict[str, Any]) -> {e.name}:
                record = cls(
                    id=str(data["id"]),
        {from_dict}
                    status=str(data.get("status", "active")),
                    tags=[str(t) for t in data.get("tags", [])],
                )
                record.validate()
                return record
    ''', **locals()).replace("\n\n\n\n", "\n\n\n")


def repository_module(e: Entity, pkg: str) -> str:
    indexed = [f for f in e.fields if f.indexed]
    index_init = "\n".join(f"        self._by_{f.name}: dict[str, set[str]] = {{}}" for f in indexed)
    index_add = "\n".join(
        f"        self._by_{f.name}.setdefault(record.{f.name}, set()).add(record.id)"
        for f in indexed)
    index_remove = "\n".join(
        f"        self._by_{f.name}.get(record.{f.name}, set()).discard(record.id)"
        for f in indexed)
    finders = "".join(textwrap.indent(_dedent(f'''
        def find_by_{f.name}(self, value: str) -> list[{e.name}]:
            """Records whose {f.name} equals value, in id order (uses the index)."""
            return [self._items[i] for i in sorted(self._by_{f.name}.get(value, ()))]

    '''), "    ") for f in indexed)
    index_clear = "\n".join(f"        self._by_{f.name}.clear()" for f in indexed)
    index_add = index_add or "        pass"
    index_remove = index_remove or "        pass"
    return _tpl('''
        """In-memory storage of {e.name} records with secondary indexes."""

        from __future__ import annotations

        from collections.abc import Iterable

        from ..core.errors import DuplicateError, NotFoundError
        from ..core.query import Query, apply_query
        from ..models.{e.snake} import {e.name}


        class {e.name}Repository:
            """Holds {e.name} records by id; every write keeps the indexes in step."""

            def __init__(self, records: Iterable[{e.name}] = ()) -> None:
                self._items: dict[str, {e.name}] = {{}}
        {index_init}
                for record in records:
                    self.add(record)

            def __len__(self) -> int:
                return len(self._items)

            def __contains__(self, record_id: object) -> bool:
                return record_id in self._items

            def _index(self, record: {e.name}) -> None:
        {index_add}

            def _unindex(self, record: {e.name}) -> None:
        {index_remove}

            def add(self, record: {e.name}) -> {e.name}:
                record.validate()
                if record.id in self._items:
                    raise DuplicateError(f"{e.name} {{record.id}} already exists")
                self._items[record.id] = record
                self._index(record)
                return record

            def get(self, record_id: str) -> {e.name}:
                try:
                    return self._items[record_id]
                except KeyError:
                    raise NotFoundError(f"no {e.name} with id {{record_id}}") from None

            def update(self, record: {e.name}) -> {e.name}:
                old = self.get(record.id)
                record.validate()
                self._unindex(old)
                self._items[record.id] = record
                self._index(record)
                return record

            def remove(self, record_id: str) -> {e.name}:
                record = self.get(record_id)
                self._unindex(record)
                del self._items[record_id]
                return record

            def all(self) -> list[{e.name}]:
                return [self._items[i] for i in sorted(self._items)]

            def active(self) -> list[{e.name}]:
                return [r for r in self.all() if r.is_active]

            def query(self, query: Query) -> list[{e.name}]:
                """Filter, sort and page the records as the query says."""
                return apply_query(self.all(), query)

            def find(self, **criteria: object) -> list[{e.name}]:
                """Records whose attributes equal every criterion (a linear scan)."""
                return [
                    r for r in self.all()
                    if all(getattr(r, name) == value for name, value in criteria.items())
                ]

            def count_where(self, **criteria: object) -> int:
                return len(self.find(**criteria))

            def snapshot(self) -> dict[str, dict]:
                """A copy of every record as a dict, for undo and for tests."""
                return {{i: r.to_dict() for i, r in self._items.items()}}

            def restore(self, snapshot: dict[str, dict]) -> None:
                """Replace the contents with a snapshot taken earlier."""
                self._items.clear()
        {index_clear}
                for data in snapshot.values():
                    self.add({e.name}.from_dict(data))

        {finders}    def ids(self) -> list[str]:
                return sorted(self._items)
    ''', **locals())


def service_module(e: Entity, pkg: str) -> str:
    money = [f.name for f in e.fields if f.kind == "money"]
    choice = next((f for f in e.fields if f.kind == "choice"), None)
    totals = ""
    if money:
        totals = textwrap.indent(_dedent(f'''
            def total_{money[0]}(self, only_active: bool = True) -> int:
                """The sum of {money[0]} over the records, in cents."""
                records = self.repository.active() if only_active else self.repository.all()
                return sum_cents(r.{money[0]} for r in records)

            def formatted_total(self) -> str:
                return format_cents(self.total_{money[0]}())

        '''), "    ")
    by_choice = ""
    if choice:
        by_choice = textwrap.indent(_dedent(f'''
            def count_by_{choice.name}(self) -> dict[str, int]:
                """How many active records have each {choice.name}; every choice is present."""
                counts = {{c: 0 for c in {choice.name.upper()}_CHOICES}}
                for record in self.repository.active():
                    counts[record.{choice.name}] += 1
                return counts

            def set_{choice.name}(self, record_id: str, value: str) -> {e.name}:
                if value not in {choice.name.upper()}_CHOICES:
                    raise ValidationError(f"{choice.name} must be one of {{{choice.name.upper()}_CHOICES}}")
                return self.update(record_id, {choice.name}=value)

        '''), "    ")
    choice_import = f", {choice.name.upper()}_CHOICES" if choice else ""
    return _tpl('''
        """Business operations on {e.name} records: create, change, archive, search."""

        from __future__ import annotations

        from dataclasses import replace
        from typing import Any

        from ..core.errors import ValidationError
        from ..core.events import EventBus
        from ..core.ids import IdAllocator
        from ..core.money import format_cents, sum_cents
        from ..core.text import matches_words
        from ..models.{e.snake} import PREFIX, {e.name}{choice_import}
        from ..repositories.{e.snake}_repo import {e.name}Repository


        class {e.name}Service:
            """The only place that changes {e.name} records; every change is published."""

            def __init__(self, repository: {e.name}Repository, bus: EventBus,
                         ids: IdAllocator | None = None) -> None:
                self.repository = repository
                self.bus = bus
                self.ids = ids or IdAllocator()

            def create(self, **values: Any) -> {e.name}:
                record = {e.name}(id=self.ids.next(PREFIX), **values)
                self.repository.add(record)
                self.bus.publish("{e.snake}.created", record.to_dict())
                return record

            def update(self, record_id: str, **changes: Any) -> {e.name}:
                current = self.repository.get(record_id)
                if not current.is_active:
                    raise ValidationError(f"{e.name} {{record_id}} is archived and cannot change")
                unknown = set(changes) - set(current.to_dict())
                if unknown:
                    raise ValidationError(f"unknown field(s) for {e.name}: {{sorted(unknown)}}")
                record = replace(current, **changes)
                self.repository.update(record)
                self.bus.publish("{e.snake}.updated", {{"id": record_id, "changes": changes}})
                return record

            def archive(self, record_id: str) -> {e.name}:
                record = self.repository.get(record_id)
                record.archive()
                self.repository.update(record)
                self.bus.publish("{e.snake}.archived", {{"id": record_id}})
                return record

            def search(self, text: str) -> list[{e.name}]:
                """Active records whose label contains every word of text (any case)."""
                return [r for r in self.repository.active() if matches_words(r.label(), text)]

            def tag(self, record_id: str, tag: str) -> {e.name}:
                record = self.repository.get(record_id)
                if tag not in record.tags:
                    record.tags.append(tag)
                    self.repository.update(record)
                return record

            def restore(self, record_id: str) -> {e.name}:
                """Undo archive: the record becomes active again."""
                record = self.repository.get(record_id)
                if record.is_active:
                    return record
                record.status = "active"
                self.repository.update(record)
                self.bus.publish("{e.snake}.restored", {{"id": record_id}})
                return record

            def bulk_create(self, rows: list[dict[str, Any]]) -> tuple[list[{e.name}], list[str]]:
                """Create every valid row; problems are collected, not raised.

                Returns the created records and one message per rejected row (1-based).
                """
                created: list[{e.name}] = []
                problems: list[str] = []
                for number, row in enumerate(rows, start=1):
                    try:
                        created.append(self.create(**row))
                    except (ValidationError, TypeError) as exc:
                        problems.append(f"row {{number}}: {{exc}}")
                return created, problems

            def history(self, record_id: str) -> list[str]:
                """The topics published about one record, oldest first."""
                return [
                    topic for topic, payload in self.bus.history
                    if payload.get("id") == record_id and topic.startswith("{e.snake}.")
                ]

            def stats(self) -> dict[str, int]:
                records = self.repository.all()
                active = sum(1 for r in records if r.is_active)
                return {{"total": len(records), "active": active, "archived": len(records) - active}}

        {totals}{by_choice}''', **locals()).rstrip() + "\n"


def serializer_module(e: Entity, pkg: str) -> str:
    cols = ["id", *(f.name for f in e.fields), "status", "tags"]
    return _dedent(f'''
        """CSV import and export of {e.name} records."""

        from __future__ import annotations

        import csv
        import io
        import json
        from collections.abc import Iterable

        from ..core.errors import ImportProblem
        from ..models.{e.snake} import {e.name}

        COLUMNS = {cols!r}


        def to_csv(records: Iterable[{e.name}]) -> str:
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\\n")
            writer.writeheader()
            for record in records:
                row = record.to_dict()
                row["tags"] = ";".join(row["tags"])
                writer.writerow(row)
            return out.getvalue()


        def from_csv(text: str) -> list[{e.name}]:
            """Parse rows; a bad row raises ImportProblem naming its line number."""
            reader = csv.DictReader(io.StringIO(text))
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise ImportProblem(f"{e.snake} CSV lacks column(s) {{', '.join(missing)}}")
            records = []
            for line, row in enumerate(reader, start=2):
                row = dict(row)
                row["tags"] = [t for t in row.get("tags", "").split(";") if t]
                try:
                    records.append({e.name}.from_dict(row))
                except (ValueError, KeyError) as exc:
                    raise ImportProblem(f"{e.snake} CSV line {{line}}: {{exc}}") from exc
            return records


        def to_json(records: Iterable[{e.name}]) -> str:
            """A JSON array of records, keys sorted, so exports diff cleanly."""
            return json.dumps([r.to_dict() for r in records], sort_keys=True, indent=2)


        def from_json(text: str) -> list[{e.name}]:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ImportProblem(f"{e.snake} JSON: {{exc}}") from exc
            if not isinstance(data, list):
                raise ImportProblem("{e.snake} JSON must be a list of objects")
            records = []
            for number, item in enumerate(data, start=1):
                try:
                    records.append({e.name}.from_dict(item))
                except (ValueError, KeyError, TypeError) as exc:
                    raise ImportProblem(f"{e.snake} JSON item {{number}}: {{exc}}") from exc
            return records
    ''')


def report_module(e: Entity, pkg: str) -> str:
    money = [f.name for f in e.fields if f.kind == "money"]
    choice = next((f for f in e.fields if f.kind == "choice"), None)
    lines = [f'    lines = [f"{e.name} report: {{len(records)}} record(s)"]']
    if choice:
        lines.append(f'    counts = Counter(r.{choice.name} for r in records)')
        lines.append('    for value in sorted(counts):')
        lines.append(f'        lines.append(f"  {choice.name} {{value}}: {{counts[value]}}")')
    if money:
        lines.append(f'    total = sum_cents(r.{money[0]} for r in records)')
        lines.append(f'    lines.append(f"  total {money[0]}: {{format_cents(total)}}")')
    body = "\n".join(lines)
    dates = [f.name for f in e.fields if f.kind == "date"]
    by_month = ""
    if dates:
        by_month = _dedent(f'''
            def by_month(records: list[{e.name}]) -> dict[str, int]:
                """How many active records fall in each month of {dates[0]} ('YYYY-MM')."""
                counts: dict[str, int] = {{}}
                for record in records:
                    if record.is_active:
                        key = record.{dates[0]}.strftime("%Y-%m")
                        counts[key] = counts.get(key, 0) + 1
                return dict(sorted(counts.items()))


        ''')
    return _tpl('''
        """Plain-text summaries of {e.name} records for the daily report."""

        from __future__ import annotations

        from collections import Counter

        from ..core.money import format_cents, sum_cents
        from ..models.{e.snake} import {e.name}


        def summary_lines(records: list[{e.name}]) -> list[str]:
            """A heading, counts per category and money totals over active records."""
            records = [r for r in records if r.is_active]
        {body}
            return lines


        {by_month}def table(records: list[{e.name}]) -> str:
            """One line per record: id and label, sorted by id."""
            return "\\n".join(r.label() for r in sorted(records, key=lambda r: r.id))
    ''', **locals())


def api_module(e: Entity, pkg: str) -> str:
    return _tpl('''
        """HTTP-style handlers for {e.name}: a request dict in, (status, body) out.

        The web layer (not part of this package) maps routes to these functions:

            GET    /{e.snake}s            -> list_{e.snake}s
            GET    /{e.snake}s/<id>       -> get_{e.snake}
            POST   /{e.snake}s            -> create_{e.snake}
            PATCH  /{e.snake}s/<id>       -> update_{e.snake}
            DELETE /{e.snake}s/<id>       -> archive_{e.snake}
        """

        from __future__ import annotations

        from typing import Any

        from ..core.errors import NotFoundError, ValidationError
        from ..core.query import Query, page_count
        from ..serializers.{e.snake}_csv import to_csv, to_json
        from ..services.{e.snake}_service import {e.name}Service

        Response = tuple[int, dict[str, Any]]


        def _error(status: int, message: str) -> Response:
            return status, {{"error": message}}


        def list_{e.snake}s(service: {e.name}Service, params: dict[str, Any]) -> Response:
            """Query parameters: page, per_page, order_by (comma separated), any field=value."""
            try:
                page = int(params.get("page", 1))
                per_page = int(params.get("per_page", 50))
            except ValueError:
                return _error(400, "page and per_page must be whole numbers")
            order_by = tuple(k for k in str(params.get("order_by", "")).split(",") if k)
            equals = {{k: v for k, v in params.items() if k not in ("page", "per_page", "order_by")}}
            try:
                query = Query(equals=equals, order_by=order_by, page=page, per_page=per_page)
                records = service.repository.query(query)
            except (ValidationError, AttributeError) as exc:
                return _error(400, str(exc))
            total = len(service.repository.find(**equals)) if equals else len(service.repository)
            return 200, {{
                "items": [r.to_dict() for r in records],
                "page": page,
                "pages": page_count(total, per_page),
                "total": total,
            }}


        def get_{e.snake}(service: {e.name}Service, record_id: str) -> Response:
            try:
                return 200, service.repository.get(record_id).to_dict()
            except NotFoundError as exc:
                return _error(404, str(exc))


        def create_{e.snake}(service: {e.name}Service, body: dict[str, Any]) -> Response:
            try:
                record = service.create(**body)
            except (ValidationError, TypeError) as exc:
                return _error(422, str(exc))
            return 201, record.to_dict()


        def update_{e.snake}(
            service: {e.name}Service, record_id: str, body: dict[str, Any]
        ) -> Response:
            try:
                record = service.update(record_id, **body)
            except NotFoundError as exc:
                return _error(404, str(exc))
            except (ValidationError, TypeError) as exc:
                return _error(422, str(exc))
            return 200, record.to_dict()


        def export_{e.snake}s(service: {e.name}Service, params: dict[str, Any]) -> Response:
            """All records as CSV (format=csv, the default) or JSON (format=json)."""
            fmt = params.get("format", "csv")
            records = service.repository.all()
            if params.get("active_only", "yes") == "yes":
                records = [r for r in records if r.is_active]
            if fmt == "csv":
                return 200, {{"content_type": "text/csv", "body": to_csv(records)}}
            if fmt == "json":
                return 200, {{"content_type": "application/json", "body": to_json(records)}}
            return _error(400, f"unknown export format {{fmt!r}} (use csv or json)")


        def archive_{e.snake}(service: {e.name}Service, record_id: str) -> Response:
            try:
                service.archive(record_id)
            except NotFoundError as exc:
                return _error(404, str(exc))
            return 204, {{}}
    ''', **locals())


def _sample_value(f: Field, n: int) -> str:
    return {
        "str": repr(f"{f.name}-{n}"),
        "int": str(3 + n),
        "money": str(1250 * (n + 1)),
        "date": f"date(2024, {1 + n % 12}, {1 + n % 27})",
        "bool": "False" if n % 2 else "True",
        "choice": repr(f.choices[n % len(f.choices)]) if f.choices else "''",
    }[f.kind]


def test_module(e: Entity, pkg: str) -> str:
    kwargs = ", ".join(f"{f.name}={_sample_value(f, 0)}" for f in e.fields)
    kwargs2 = ", ".join(f"{f.name}={_sample_value(f, 1)}" for f in e.fields)
    s = e.label_field
    return _dedent(f'''
        import unittest
        from datetime import date

        from {pkg}.core.events import EventBus
        from {pkg}.repositories.{e.snake}_repo import {e.name}Repository
        from {pkg}.serializers.{e.snake}_csv import from_csv, to_csv
        from {pkg}.services.{e.snake}_service import {e.name}Service


        def make_service():
            bus = EventBus()
            return {e.name}Service({e.name}Repository(), bus), bus


        class Test{e.name}(unittest.TestCase):
            def test_create_publishes(self):
                service, bus = make_service()
                record = service.create({kwargs})
                self.assertTrue(record.id.startswith("{e.prefix}-"))
                self.assertEqual(bus.history[-1][0], "{e.snake}.created")

            def test_update_and_archive(self):
                service, _ = make_service()
                record = service.create({kwargs})
                service.update(record.id, {s}="changed")
                self.assertEqual(service.repository.get(record.id).{s}, "changed")
                service.archive(record.id)
                self.assertEqual(service.repository.active(), [])

            def test_csv_round_trip(self):
                service, _ = make_service()
                service.create({kwargs})
                service.create({kwargs2})
                text = to_csv(service.repository.all())
                self.assertEqual(
                    [r.to_dict() for r in from_csv(text)],
                    [r.to_dict() for r in service.repository.all()],
                )

            def test_bulk_create_collects_problems(self):
                service, _ = make_service()
                good = dict({kwargs})
                bad = dict(good, {s}="")
                created, problems = service.bulk_create([good, bad, good])
                self.assertEqual(len(created), 2)
                self.assertEqual(len(problems), 1)
                self.assertTrue(problems[0].startswith("row 2:"))

            def test_history_and_restore(self):
                service, _ = make_service()
                record = service.create({kwargs})
                service.archive(record.id)
                service.restore(record.id)
                self.assertEqual(
                    service.history(record.id),
                    ["{e.snake}.created", "{e.snake}.archived", "{e.snake}.restored"],
                )
                self.assertEqual(service.stats(), {{"total": 1, "active": 1, "archived": 0}})

            def test_search(self):
                service, _ = make_service()
                service.create({kwargs})
                self.assertEqual(len(service.search("{s}-0")), 1)
                self.assertEqual(service.search("nothing-like-this"), [])
    ''')


# --------------------------------------------------------------------------- writing


def write_repo(domain: str, out: Path, entities: int | None = None,
               overlay: str | None = None) -> None:
    spec = DOMAINS[domain]
    pkg = spec["package"]
    chosen = spec["entities"][:entities] if entities else spec["entities"]
    if out.exists():
        shutil.rmtree(out)
    root = out / pkg

    def put(rel: str, text: str) -> None:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    for sub in ("models", "repositories", "services", "serializers", "reports", "api"):
        put(f"{pkg}/{sub}/__init__.py", f'"""{pkg} {sub}."""\n')
    for e in chosen:
        put(f"{pkg}/models/{e.snake}.py", model_module(e, pkg))
        put(f"{pkg}/repositories/{e.snake}_repo.py", repository_module(e, pkg))
        put(f"{pkg}/services/{e.snake}_service.py", service_module(e, pkg))
        put(f"{pkg}/serializers/{e.snake}_csv.py", serializer_module(e, pkg))
        put(f"{pkg}/reports/{e.snake}_report.py", report_module(e, pkg))
        put(f"{pkg}/api/{e.snake}_api.py", api_module(e, pkg))
        put(f"tests/test_{e.snake}.py", test_module(e, pkg))
    put("tests/__init__.py", "")
    # Hand-written parts: the shared core (same for every domain) and the domain's own modules.
    layers = [PARTS / "common", PARTS / domain]
    if overlay:  # a task's own versions of some modules (where its bug lives)
        layers.append(PARTS / "overlays" / overlay)
    for parts in layers:
        for src in sorted(parts.rglob("*")):
            if src.is_file() and "__pycache__" not in src.parts:
                rel = src.relative_to(parts).as_posix().replace("PKG", pkg)
                text = src.read_text(encoding="utf-8")
                put(rel, text.replace("PKG_UPPER", pkg.upper()).replace("PKG", pkg))
    listing = "\n".join(f"* `{e.snake}`: {e.doc}" for e in chosen)
    readme = (root.parent / "README.md")
    extra = readme.read_text(encoding="utf-8") if readme.exists() else ""
    put("README.md", f"# {spec['title']}\n\n{extra}\n## Entities\n\n{listing}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain", choices=sorted(DOMAINS))
    parser.add_argument("out", type=Path, help="the task's repo/ directory (replaced)")
    parser.add_argument("--entities", type=int, help="only the first N entities")
    parser.add_argument(
        "--overlay", help="apply tasks/generators/large_repo_parts/overlays/NAME last"
    )
    args = parser.parse_args()
    write_repo(args.domain, args.out, args.entities, args.overlay)


if __name__ == "__main__":
    main()
