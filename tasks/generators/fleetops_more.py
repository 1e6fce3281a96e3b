# ruff: noqa: E501 - generated-code templates read better unwrapped
"""The richer per-kind toolkit of the large fleetops repositories (b14, b15).

gen_core_b_fleetops.py writes one model, store, service, report and test module per record
kind; for most kinds of the two large tasks these functions add more to each: every field
problem at once, JSON Lines import and export, snapshots, duplicate and change detection,
reference checks, medians and buckets, and the tests of all of it. The kinds whose modules
the b14/b15 oracles read (fuel_log, vehicle, trip, driver, maintenance) keep the plain
toolkit, so the tasks' oracle context stays where it was measured.

Every template here avoids the texts the oracles grep for (`int(`, `print(`, `.find(`,
`to_cents`), so those greps return what they returned before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the generator imports this module, not the other way round
    from gen_core_b_fleetops import Entity, Field

PLAIN_KINDS = frozenset({"fuel_log", "vehicle", "trip", "driver", "maintenance"})


def wants_more(name: str) -> bool:
    return name not in PLAIN_KINDS


def _numeric(e: Entity) -> list[Field]:
    return [
        f for f in e.fields
        if f.kind in ("float", "money", "int") and f.name not in ("year", "sequence")
    ]


def _refs(e: Entity) -> list[Field]:
    return [f for f in e.fields if f.kind.startswith("ref:")]


def _choices(e: Entity) -> list[Field]:
    return [f for f in e.fields if f.kind.startswith("choice:")]


def _dates(e: Entity) -> list[Field]:
    return [f for f in e.fields if f.kind == "date"]


def _bools(e: Entity) -> list[Field]:
    return [f for f in e.fields if f.kind == "bool"]


def _label_field(e: Entity) -> Field:
    for f in e.fields:
        if f.kind == "text":
            return f
    return e.fields[0]


# --------------------------------------------------------------------------- models


def model_check_lines(e: Entity, checks: list[str]) -> list[str]:
    """The body of _checks(): one lambda per field check validate() used to run inline."""
    out = ["    def _checks(self) -> tuple[Callable[[], None], ...]:"]
    out += ['        """One check per field, in field order; each raises ValidationError."""']
    out += ["        return ("]
    out += [f"            lambda: {c.strip()}," for c in checks]
    out += ["        )", ""]
    return out


def model_methods_more(e: Entity) -> list[str]:
    label = _label_field(e)
    out = ["    def problems(self) -> list[str]:"]
    out += ['        """Every field problem of the record; validate() stops at the first one."""']
    out += ["        found = []", "        for check in self._checks():", "            try:"]
    out += ["                check()", "            except ValidationError as exc:"]
    out += ["                found.append(str(exc))", "        return found", ""]
    out += ["    def is_valid(self) -> bool:", "        return not self.problems()", ""]
    out += ["    def to_json(self) -> str:"]
    out += ['        """The record as one line of JSON, keys in field order."""']
    out += ["        return json.dumps({k: getattr(self, k) for k in FIELDS})", ""]
    out += ["    @classmethod", f"    def from_json(cls, text: str) -> {e.cls}:"]
    out += ['        """The inverse of to_json; a malformed line raises ValidationError."""']
    out += ["        try:", "            data = json.loads(text)", "        except json.JSONDecodeError as exc:"]
    out += [f'            raise ValidationError(f"{e.name}: not JSON ({{exc.msg}} at column {{exc.colno}})") from None']
    out += ["        if not isinstance(data, dict):"]
    out += [f'            raise ValidationError(f"{e.name}: expected a JSON object, got {{type(data).__name__}}")']
    out += ["        return cls.from_dict(data)", ""]
    out += ["    def matches(self, **filters: object) -> bool:"]
    out += ['        """True if every named field equals the given value."""']
    out += ["        for key, wanted in filters.items():", "            if key not in FIELDS:"]
    out += [f'                raise AttributeError(f"{e.cls} has no field {{key!r}}")']
    out += ["            if getattr(self, key) != wanted:", "                return False"]
    out += ["        return True", ""]
    out += [f"    def same_content(self, other: {e.cls}) -> bool:"]
    out += ['        """True if every field but the id is equal: most likely the same entry twice."""']
    out += ["        return all(getattr(self, k) == getattr(other, k) for k in FIELDS[1:])", ""]
    out += ["    def label(self) -> str:"]
    out += [f'        """A short label for pick lists: the id and the {label.name}."""']
    out += [f'        return f"{{self.id}} ({{self.{label.name}}})"', ""]
    return out


def model_tail_more(e: Entity) -> list[str]:
    out = ["", f"def parse_json_lines(text: str) -> tuple[list[{e.cls}], list[str]]:"]
    out += ['    """Records from JSON Lines text and one problem per bad line (blank lines are skipped)."""']
    out += [f"    records: list[{e.cls}] = []", "    problems: list[str] = []"]
    out += ["    for n, line in enumerate(text.splitlines(), start=1):", "        if not line.strip():"]
    out += ["            continue", "        try:", f"            records.append({e.cls}.from_json(line))"]
    out += ["        except ValidationError as exc:", '            problems.append(f"line {n}: {exc}")']
    out += ["    return records, problems", "", ""]
    out += [f"def to_json_lines(records: Iterable[{e.cls}]) -> str:"]
    out += ['    """One JSON object per line, each line ending in a newline."""']
    out += ['    return "".join(r.to_json() + "\\n" for r in records)', ""]
    return out


def extend_model(text: str, e: Entity) -> str:
    """Turn validate()'s inline checks into _checks() and add the richer methods."""
    head, rest = text.split('        """Raise ValidationError if a field is wrong."""\n', 1)
    checks_block, tail = rest.split("\n\n    def to_dict", 1)
    checks = checks_block.splitlines()
    validate = ['        """Raise ValidationError if a field is wrong."""']
    validate += ["        for check in self._checks():", "            check()", ""]
    text = head + "\n".join(validate + model_check_lines(e, checks))
    text += "\n    def to_dict" + tail
    text = text.replace(
        "    @classmethod\n    def from_dict",
        "\n".join(model_methods_more(e)) + "\n    @classmethod\n    def from_dict",
    )
    text = text.replace(
        "from dataclasses import asdict, dataclass\n",
        "import json\nfrom collections.abc import Callable, Iterable\n"
        "from dataclasses import asdict, dataclass\n",
    )
    return text.rstrip() + "\n" + "\n".join(model_tail_more(e))


# --------------------------------------------------------------------------- stores


def store_methods_more(e: Entity) -> list[str]:
    c = e.cls
    out = ["", f"    def index_by(self, field: str) -> dict[object, list[{c}]]:"]
    out += ['        """Records grouped by the value of one field, values in first-seen order."""']
    out += ["        if field not in FIELDS:", f'            raise AttributeError(f"{c} has no field {{field!r}}")']
    out += [f"        index: dict[object, list[{c}]] = {{}}", "        for r in self:"]
    out += ["            index.setdefault(getattr(r, field), []).append(r)", "        return index"]
    out += ["", "    def count_where(self, **filters: Any) -> int:"]
    out += ['        """How many records match every filter (field=value)."""']
    out += ["        return sum(1 for r in self if matches_filters(r, filters))"]
    out += ["", f"    def first_where(self, **filters: Any) -> {c} | None:"]
    out += ['        """The first record, in insertion order, that matches every filter."""']
    out += ["        for r in self:", "            if matches_filters(r, filters):", "                return r"]
    out += ["        return None"]
    out += ["", f"    def upsert(self, record: {c}) -> bool:"]
    out += ['        """Add a record or replace the one with its id; True if one was replaced."""']
    out += ["        record.validate()", "        replaced = record.id in self._records"]
    out += ["        self._records[record.id] = record", "        return replaced"]
    out += ["", f"    def add_many(self, records: Iterable[{c}]) -> list[str]:"]
    out += ['        """Add each record; one message per rejected record (the others are kept)."""']
    out += ["        problems = []", "        for r in records:", "            try:", "                self.add(r)"]
    out += ["            except (DuplicateError, ValidationError) as exc:", '                problems.append(f"{r.id}: {exc}")']
    out += ["        return problems"]
    out += ["", "    def snapshot(self) -> list[dict]:"]
    out += ['        """Plain dicts of every record, for restore() (records are mutable)."""']
    out += ["        return [r.to_dict() for r in self]"]
    out += ["", "    def restore(self, snapshot: list[dict]) -> None:"]
    out += ['        """Go back to a snapshot; nothing changes if one of its records is invalid."""']
    out += [f"        self.replace_all([{c}.from_dict(d) for d in snapshot])"]
    out += ["", f"    def pop_where(self, **filters: Any) -> list[{c}]:"]
    out += ['        """Remove and return every record that matches the filters."""']
    out += ["        gone = [r for r in self if matches_filters(r, filters)]", "        for r in gone:"]
    out += ["            del self._records[r.id]", "        return gone"]
    return out


def extend_store(text: str, e: Entity) -> str:
    text = text.replace(
        "from fleetops.store.base import InMemoryStore\n",
        "from fleetops.store.base import InMemoryStore, matches_filters\n",
    )
    text = text.replace(
        '"""\n\nfrom __future__ import annotations\n\n',
        '"""\n\nfrom __future__ import annotations\n\nfrom collections.abc import Iterable\n'
        "from typing import Any\n\nfrom fleetops.errors import DuplicateError, ValidationError\n",
        1,
    )
    return text.rstrip() + "\n" + "\n".join(store_methods_more(e)) + "\n"


# --------------------------------------------------------------------------- services


def service_more(e: Entity) -> list[str]:
    c, p = e.cls, e.plural
    out = ["", f"def find_duplicates(records: Iterable[{c}]) -> list[list[str]]:"]
    out += ['    """Groups of ids whose records are equal in every field but the id (entered twice)."""']
    out += ["    groups: dict[tuple, list[str]] = defaultdict(list)", "    for r in records:"]
    out += ["        groups[tuple(getattr(r, k) for k in FIELDS[1:])].append(r.id)"]
    out += ["    return [ids for ids in groups.values() if len(ids) > 1]", ""]
    out += ["", f"def changes_between(before: Iterable[{c}], after: Iterable[{c}]) -> dict[str, list[str]]:"]
    out += ['    """Ids added, removed and changed between two versions of the same data, sorted."""']
    out += ["    old = {r.id: r for r in before}", "    new = {r.id: r for r in after}", "    return {"]
    out += ['        "added": sorted(set(new) - set(old)),', '        "removed": sorted(set(old) - set(new)),']
    out += ['        "changed": sorted(k for k in set(old) & set(new) if old[k].diff(new[k])),', "    }", ""]
    refs = _refs(e)
    if refs:
        kinds = ", ".join(f"{f.kind[4:]}s=" for f in refs)
        out += ["", f"def check_references(records: Iterable[{c}], **stores: object) -> list[str]:"]
        out += ['    """One message per reference to a record the given stores do not hold.', ""]
        out += [f"    Stores are passed by kind ({kinds}...); a kind not given is not checked.", '    """']
        for f in refs:
            key = f.kind[4:]
            out += [f'    {key}s = stores.get("{key}s")']
        out += ["    problems = []", "    for r in records:"]
        for f in refs:
            key = f.kind[4:]
            out += [f"        if {key}s is not None and not {key}s.has(r.{f.name}):  # type: ignore[attr-defined]"]
            out += [f'            problems.append(f"{{r.id}}: no {key} {{r.{f.name}}}")']
        out += ["    return problems", ""]
        for f in refs:
            key = f.name.removesuffix("_id")
            out += ["", f"def count_by_{key}(records: Iterable[{c}]) -> dict[str, int]:"]
            out += [f'    """How many {p} refer to each {key} id, ids sorted."""']
            out += [f"    counts = Counter(r.{f.name} for r in records)"]
            out += ["    return dict(sorted(counts.items()))", ""]
    for f in _choices(e):
        out += ["", f"def share_by_{f.name}(records: Iterable[{c}]) -> dict[str, float]:"]
        out += [f'    """Percent of {p} per {f.name}, one decimal (all 0.0 when there are none)."""']
        out += [f"    counts = count_by_{f.name}(records)", "    total = sum(counts.values())"]
        out += ["    return {k: round(100 * n / total, 1) if total else 0.0 for k, n in counts.items()}", ""]
    for f in _numeric(e):
        n = f.name
        out += ["", f"def median_{n}(records: Iterable[{c}]) -> float | None:"]
        out += [f'    """The median {n}, or None when there are no records."""']
        out += [f"    values = sorted(r.{n} for r in records)", "    if not values:", "        return None"]
        out += ["    mid = len(values) // 2", "    if len(values) % 2:", "        return values[mid]"]
        out += ["    return (values[mid - 1] + values[mid]) / 2", ""]
        out += ["", f"def bucket_{n}(records: Iterable[{c}], edges: list[float]) -> dict[str, int]:"]
        out += [f'    """Counts of {p} per {n} range: "<a", "a-b", ..., ">=z" for ascending edges a..z."""']
        out += ["    if not edges or list(edges) != sorted(set(edges)):"]
        out += ['        raise ValidationError(f"edges must be a non-empty ascending list, got {edges!r}")']
        out += ['    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in zip(edges, edges[1:])]']
        out += ['    labels.append(f">={edges[-1]}")', "    counts = dict.fromkeys(labels, 0)"]
        out += ["    for r in records:", f"        counts[labels[bisect_right(edges, r.{n})]] += 1"]
        out += ["    return counts", ""]
        out += ["", f"def outside_{n}(records: Iterable[{c}], low: float, high: float) -> list[{c}]:"]
        out += [f'    """{c} records whose {n} is below low or above high, for data checks."""']
        out += ["    if low > high:", '        raise ValidationError(f"low ({low}) must not exceed high ({high})")']
        out += [f"    return [r for r in records if r.{n} < low or r.{n} > high]", ""]
    dates = _dates(e)
    if dates:
        d = dates[0].name
        out += ["", f"def first_and_last(records: Iterable[{c}]) -> tuple[str, str] | None:"]
        out += [f'    """The earliest and latest {d}, or None when there are no records."""']
        out += [f"    days = [r.{d} for r in records]", "    if not days:", "        return None"]
        out += ["    return min(days), max(days)", ""]
        out += ["", f"def busiest_month(records: Iterable[{c}]) -> str | None:"]
        out += [f'    """The month (YYYY-MM) with the most {p}; the earliest one on a tie."""']
        out += ["    months = per_month(records)", "    if not months:", "        return None"]
        out += ["    return min(months, key=lambda m: (-months[m], m))", ""]
        out += ["", f"def days_since_previous(records: Iterable[{c}]) -> dict[str, int]:"]
        out += [f'    """Per record id, days since the {e.name} before it ({d} order; the first is left out)."""']
        out += ["    ordered = sorted(records, key=lambda r: r.sort_key())", "    gaps = {}"]
        out += ["    for before, after in zip(ordered, ordered[1:]):"]
        out += [f"        gaps[after.id] = days_between(before.{d}, after.{d})", "    return gaps", ""]
        for f in e.fields:
            if f.kind == "money":
                out += ["", f"def monthly_{f.name}_cents(records: Iterable[{c}]) -> dict[str, int]:"]
                out += [f'    """Total {f.name} in cents per month (YYYY-MM), months in order."""']
                out += ["    amounts: dict[str, list[float]] = defaultdict(list)", "    for r in records:"]
                out += [f"        amounts[month_of(r.{d})].append(r.{f.name})"]
                out += ["    return {m: money.sum_cents(amounts[m]) for m in sorted(amounts)}", ""]
    for f in _bools(e):
        out += ["", f"def split_by_{f.name}(records: Iterable[{c}]) -> tuple[list[{c}], list[{c}]]:"]
        out += [f'    """({p} with {f.name} true, {p} with {f.name} false), each in input order."""']
        out += [f"    yes: list[{c}] = []", f"    no: list[{c}] = []", "    for r in records:"]
        out += [f"        (yes if r.{f.name} else no).append(r)", "    return yes, no", ""]
    out += ["", f"def export_json_lines(records: Iterable[{c}]) -> str:"]
    out += ['    """JSON Lines text of the records (see import_json_lines)."""']
    out += ["    return to_json_lines(records)", ""]
    out += ["", f"def import_json_lines(store: {c}Store, text: str) -> list[str]:"]
    out += ['    """Add every good line to the store; return one message per rejected line."""']
    out += ["    records, problems = parse_json_lines(text)", "    for r in records:"]
    out += ["        if store.has(r.id):", '            problems.append(f"{r.id}: duplicate id")', "            continue"]
    out += ["        store.add(r)", "    return problems", ""]
    out += ["", f"def merge_into(store: {c}Store, records: Iterable[{c}], overwrite: bool = False) -> dict[str, int]:"]
    out += ['    """Add new records; replace stored ones with the same id only when overwrite is set.', ""]
    out += ['    Returns how many were added, replaced and skipped (same id, not overwritten).', '    """']
    out += ['    counts = {"added": 0, "replaced": 0, "skipped": 0}', "    for r in records:"]
    out += ["        if not store.has(r.id):", "            store.add(r)", '            counts["added"] += 1']
    out += ["        elif overwrite:", "            store.upsert(r)", '            counts["replaced"] += 1']
    out += ["        else:", '            counts["skipped"] += 1', "    return counts", ""]
    return out


def extend_service_imports(text: str, e: Entity) -> str:
    text = text.replace(
        f"from fleetops.models.{e.name} import FIELDS, {e.cls}, parse_row_safe, to_row\n",
        f"from fleetops.models.{e.name} import (\n    FIELDS,\n    {e.cls},\n    parse_json_lines,\n"
        "    parse_row_safe,\n    to_json_lines,\n    to_row,\n)\n",
    )
    if _numeric(e):
        text = text.replace(
            "from collections import Counter, defaultdict\n",
            "from bisect import bisect_right\nfrom collections import Counter, defaultdict\n",
        )
    if _dates(e):
        text = text.replace(
            "from fleetops.util.dates import in_range, month_of\n",
            "from fleetops.util.dates import days_between, in_range, month_of\n",
        )
    return text


# --------------------------------------------------------------------------- reports


def report_more(e: Entity) -> list[str]:
    c, p, name = e.cls, e.plural, e.name
    out: list[str] = []
    numeric = _numeric(e)
    if numeric:
        out += ["", f"def {name}_stats(records: Iterable[{c}]) -> Table:"]
        out += [f'    """Count, min, max, mean and median of each number field of the {p}."""']
        out += ["    data = list(records)", "    columns = [\"field\", \"count\", \"min\", \"max\", \"mean\", \"median\"]"]
        out += [f'    table = Table("{c} statistics", columns, align={{c: "right" for c in columns[1:]}})']
        out += ["    rows = ("]
        out += [f'        ("{f.name}", svc.{f.name}_stats(data), svc.median_{f.name}(data)),' for f in numeric]
        out += ["    )", "    for field, stats, median in rows:", "        if stats is None:", "            continue"]
        out += ['        table.add(field, stats["count"], stats["min"], stats["max"], round(stats["mean"], 2), median)']
        out += ["    return table", ""]
    for f in _refs(e):
        key = f.name.removesuffix("_id")
        out += ["", f"def {name}_by_{key}(records: Iterable[{c}]) -> Table:"]
        out += [f'    """How many {p} each {key} has."""']
        out += [f'    table = Table("{c} records per {key}", ["{key}", "count"], align={{"count": "right"}})']
        out += [f"    for {key}_id, count in svc.count_by_{key}(records).items():"]
        out += [f"        table.add({key}_id, count)", "    return table", ""]
    out += ["", f"def {name}_changes(before: Iterable[{c}], after: Iterable[{c}]) -> Table:"]
    out += [f'    """One row per {name} added, removed or changed between two versions of the data."""']
    out += [f'    table = Table("{c} changes", ["change", "id"])']
    out += ["    for change, ids in svc.changes_between(before, after).items():", "        for record_id in ids:"]
    out += ["            table.add(change, record_id)", "    return table", ""]
    out += ["", f"def {name}_problems(records: Iterable[{c}], **stores: object) -> Table:"]
    out += ['    """Field problems, duplicates and (with stores given) dangling references."""']
    out += [f'    table = Table("{c} problems", ["id", "problem"])', "    data = list(records)"]
    out += ["    for r in data:", "        for problem in r.problems():", "            table.add(r.id, problem)"]
    out += ["    for ids in svc.find_duplicates(data):", "        for record_id in ids[1:]:"]
    out += ['            table.add(record_id, f"same content as {ids[0]}")']
    if _refs(e):
        out += ["    for message in svc.check_references(data, **stores):"]
        out += ['        record_id, _, problem = message.partition(": ")', "        table.add(record_id, problem)"]
    else:
        out += ["    del stores  # no references to check for this kind"]
    out += ["    return table", ""]
    return out


# --------------------------------------------------------------------------- tests


def test_more(e: Entity, sample) -> list[str]:  # noqa: ANN001 - the generator's sample()
    c, name, pre = e.cls, e.name, e.prefix
    out = ["    def test_problems_lists_every_field(self):", "        record = make(1)"]
    out += ['        record.id = "X-1"']
    first = e.fields[0]
    bad = "''" if first.kind in ("text",) or first.kind.startswith(("ref:", "choice:")) or first.kind == "date" else "-1"
    if first.kind == "bool":
        bad = "'yes'"
    out += [f"        record.{first.name} = {bad}"]
    out += ["        self.assertEqual(len(record.problems()), 2)", "        self.assertFalse(record.is_valid())"]
    out += ["        self.assertTrue(make(2).is_valid())", ""]
    out += ["    def test_json_round_trip(self):", "        record = make(3)"]
    out += [f"        self.assertEqual({c}.from_json(record.to_json()), record)"]
    out += ["        with self.assertRaises(ValidationError):", f'            {c}.from_json("[1, 2]")']
    out += ["        with self.assertRaises(ValidationError):", f'            {c}.from_json("{{not json")', ""]
    out += ["    def test_json_lines_import(self):", "        text = svc.export_json_lines([make(1), make(2)])"]
    out += [f"        store = {c}Store([make(1)])"]
    out += ['        problems = svc.import_json_lines(store, text + "\\n{}\\n")']
    out += ["        self.assertEqual(len(store), 2)", "        self.assertEqual(len(problems), 2)"]
    out += ['        self.assertTrue(problems[0].startswith("line 4: "))', ""]
    out += ["    def test_matches_and_label(self):", "        record = make(1)"]
    out += [f"        self.assertTrue(record.matches(id=\"{pre}-0001\"))", f"        self.assertFalse(record.matches(id=\"{pre}-0002\"))"]
    out += ["        with self.assertRaises(AttributeError):", "            record.matches(nope=1)"]
    out += [f'        self.assertTrue(record.label().startswith("{pre}-0001 ("))', ""]
    out += ["    def test_store_index_and_counts(self):", f"        store = {c}Store([make(1), make(2), make(3), make(4)])"]
    out += [f'        index = store.index_by("{first.name}")']
    out += ["        self.assertEqual(sum(len(v) for v in index.values()), 4)"]
    out += [f'        self.assertEqual(store.count_where(id="{pre}-0003"), 1)']
    out += [f'        self.assertEqual(store.first_where(id="{pre}-0002"), make(2))']
    out += ['        self.assertIsNone(store.first_where(id="nope"))']
    out += ["        with self.assertRaises(AttributeError):", '            store.index_by("nope")', ""]
    out += ["    def test_store_upsert_snapshot_restore(self):", f"        store = {c}Store([make(1), make(2)])"]
    out += ["        saved = store.snapshot()", "        self.assertFalse(store.upsert(make(3)))"]
    out += ["        self.assertTrue(store.upsert(make(1)))", "        self.assertEqual(len(store), 3)"]
    out += ["        store.restore(saved)", f'        self.assertEqual(store.ids(), ["{pre}-0001", "{pre}-0002"])']
    out += [f'        self.assertEqual([r.id for r in store.pop_where(id="{pre}-0001")], ["{pre}-0001"])']
    out += ["        self.assertEqual(len(store), 1)", ""]
    out += ["    def test_add_many_keeps_good_records(self):", "        bad = make(3)", '        bad.id = "nope"']
    out += [f"        store = {c}Store([make(1)])", "        problems = store.add_many([make(1), make(2), bad])"]
    out += ["        self.assertEqual(len(store), 2)", "        self.assertEqual(len(problems), 2)", ""]
    out += ["    def test_duplicates_and_changes(self):", "        twin = make(1).to_dict()"]
    out += [f'        twin["id"] = "{pre}-0009"', f"        twin = {c}.from_dict(twin)"]
    out += ["        self.assertTrue(make(1).same_content(twin))"]
    out += [f'        self.assertEqual(svc.find_duplicates([make(1), make(2), twin]), [["{pre}-0001", "{pre}-0009"]])']
    other = sample(e, first, 3)
    out += [f"        changed = make(2).copy_with({first.name}={other!r})"]
    out += ["        changes = svc.changes_between([make(1), make(2)], [changed, make(3)])"]
    out += [f'        self.assertEqual(changes, {{"added": ["{pre}-0003"], "removed": ["{pre}-0001"], "changed": ["{pre}-0002"]}})']
    out += [f"        table = report.{name}_changes([make(1), make(2)], [changed, make(3)])"]
    out += ["        self.assertEqual(len(table.rows), 3)", ""]
    out += ["    def test_merge_into(self):", f"        store = {c}Store([make(1)])"]
    out += ["        counts = svc.merge_into(store, [make(1), make(2)])"]
    out += ['        self.assertEqual(counts, {"added": 1, "replaced": 0, "skipped": 1})']
    out += ["        counts = svc.merge_into(store, [make(1)], overwrite=True)"]
    out += ['        self.assertEqual(counts["replaced"], 1)', ""]
    refs = _refs(e)
    if refs:
        f = refs[0]
        key = f.kind[4:]
        short = f.name.removesuffix("_id")
        out += ["    def test_check_references(self):"]
        out += [f"        known = {{{sample(e, f, 1)!r}}}"]
        out += ["        class Known:", "            def has(self, record_id):", "                return record_id in known", ""]
        out += [f"        problems = svc.check_references([make(1), make(2)], {key}s=Known())"]
        out += ["        self.assertEqual(len(problems), 1)", f'        self.assertTrue(problems[0].startswith("{pre}-0002: no {key} "))']
        out += ["        self.assertEqual(svc.check_references([make(1), make(2)]), [])"]
        out += [f"        counts = svc.count_by_{short}([make(1), make(2), make(3), make(4)])"]
        out += ["        self.assertEqual(sum(counts.values()), 4)"]
        out += [f"        self.assertEqual(len(report.{name}_by_{short}([make(1), make(4)]).rows), 1)", ""]
    for f in _choices(e)[:1]:
        out += [f"    def test_share_by_{f.name}(self):"]
        out += [f"        shares = svc.share_by_{f.name}([make(1), make(2)])"]
        out += ["        self.assertEqual(round(sum(shares.values())), 100)"]
        out += [f"        self.assertEqual(set(svc.share_by_{f.name}([]).values()), {{0.0}})", ""]
    numeric = _numeric(e)
    if numeric:
        f = numeric[0]
        vals = sorted(sample(e, f, n) for n in (1, 2, 3, 4))
        median = (vals[1] + vals[2]) / 2
        out += [f"    def test_{f.name}_median_buckets_outside(self):", "        data = [make(1), make(2), make(3), make(4)]"]
        out += [f"        self.assertEqual(svc.median_{f.name}(data), {median!r})"]
        out += [f"        self.assertEqual(svc.median_{f.name}(data[:3]), {vals[1]!r})"]
        out += [f"        self.assertIsNone(svc.median_{f.name}([]))"]
        out += [f"        buckets = svc.bucket_{f.name}(data, [{vals[1]!r}, {vals[3]!r}])"]
        out += ['        self.assertEqual(list(buckets.values()), [1, 2, 1])']
        out += ["        with self.assertRaises(ValidationError):", f"            svc.bucket_{f.name}(data, [3, 1])"]
        out += [f"        self.assertEqual(len(svc.outside_{f.name}(data, {vals[1]!r}, {vals[2]!r})), 2)"]
        out += [f"        stats = report.{name}_stats(data)"]
        out += [f"        self.assertEqual(len(stats.rows), {len(numeric)})", ""]
    if _dates(e):
        d = _dates(e)[0]
        days = sorted(sample(e, d, n) for n in (1, 2, 3))
        out += ["    def test_dates(self):", "        data = [make(3), make(1), make(2)]"]
        out += [f"        self.assertEqual(svc.first_and_last(data), ({days[0]!r}, {days[-1]!r}))"]
        out += ["        self.assertIsNone(svc.first_and_last([]))"]
        out += ["        self.assertIsNone(svc.busiest_month([]))"]
        out += [f"        self.assertEqual(svc.busiest_month(data), {days[0][:7]!r})"]
        out += ["        gaps = svc.days_since_previous(data)"]
        out += ["        self.assertEqual(len(gaps), 2)", "        self.assertTrue(all(g >= 0 for g in gaps.values()))"]
        for f in e.fields:
            if f.kind == "money":
                out += [f"        monthly = svc.monthly_{f.name}_cents(data)"]
                out += [f"        self.assertEqual(sum(monthly.values()), svc.total_{f.name}_cents(data))"]
        out += [""]
    for f in _bools(e):
        out += [f"    def test_split_by_{f.name}(self):"]
        out += [f"        yes, no = svc.split_by_{f.name}([make(1), make(2), make(3), make(4)])"]
        out += ["        self.assertEqual(len(yes) + len(no), 4)"]
        out += [f"        self.assertTrue(all(r.{f.name} for r in yes))", ""]
    out += ["    def test_problems_report(self):", "        bad = make(2)", '        bad.id = "nope"']
    out += [f"        table = report.{name}_problems([make(1), bad])"]
    out += ['        self.assertEqual([row[0] for row in table.rows], ["nope"])', ""]
    return out
