"""Report tables in other formats: CSV, Markdown and JSON (Table.render() is plain text).

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
