"""Compare two run directories' run.db row by row on everything that does not depend on the
clock: steps, tokens, actions, observations, outcomes, terminations; and, where a run has
them, its per-unit files (a replay's turns with their scores, an accuracy run's samples with
their verdicts), line by line. Used to show that a refactor changed no behaviour (the same
run made before and after it).

    python tools/diff_runs.py RUN_DIR_BEFORE RUN_DIR_AFTER [--json]

Exit 0 when identical, 1 with the differing cells listed, 2 on a bad argument.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from pathlib import Path

TABLES = {"runs": ("run_id",), "tasks": ("task_id", "attempt"),
          "steps": ("task_id", "attempt", "step")}
# a run directory's per-unit files (rundir/files.py names them) and the fields keying a line
UNIT_FILES = {"replay_turns.jsonl": ("conversation_id", "step"),
              "accuracy_samples.jsonl": ("id", "attempt")}
# columns that hold clock readings, durations, energy or host load (load_*: the CPU time other
# processes and steal took per phase): they differ between any two runs of the same code, so
# they are not behaviour
CLOCK_COLUMN = re.compile(
    r"(_ms|_ns|^wall|_wall$|energy|^cpu_|^load_|rss|temp|sample_hz|average_w|provenance|run_id"
    r"|_j$|null_reason)")
# unittest's own timing line inside grading output
RAN_IN = re.compile(r"(Ran \d+ tests?) in [\d.]+s")
# each task's workspace is a fresh temporary directory; tracebacks name it
WORKSPACE = re.compile(r"edgeagent-ws-\w+")


def _rows(db: Path, table: str) -> dict[tuple, dict[str, object]]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    rows = {}
    for row in con.execute(f"SELECT * FROM {table}"):  # noqa: S608 - table names are ours
        record = {k: row[k] for k in row.keys() if not CLOCK_COLUMN.search(k)}
        if isinstance(record.get("suite"), str) and record["suite"].startswith("replay:"):
            # a replay's suite names its dataset by path, which is where the checkout is
            record["suite"] = "replay:" + Path(record["suite"][7:]).name
        if isinstance(record.get("grading_output"), str):
            record["grading_output"] = RAN_IN.sub(r"\1", record["grading_output"])
        record = {k: WORKSPACE.sub("edgeagent-ws-*", v) if isinstance(v, str) else v
                  for k, v in record.items()}
        rows[tuple(row[k] for k in TABLES[table] if k != "run_id")] = record
    con.close()
    return rows


def _lines(path: Path, key: tuple[str, ...]) -> dict[tuple, dict[str, object]]:
    """A per-unit file's lines by their key, clock fields left out (a line a kill cut short
    skipped)."""
    rows: dict[tuple, dict[str, object]] = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else ():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        rows[tuple(record.get(k) for k in key)] = {
            k: v for k, v in record.items() if not CLOCK_COLUMN.search(k)}
    return rows


def _tables(before: Path, after: Path):
    for table in TABLES:
        yield table, _rows(before / "run.db", table), _rows(after / "run.db", table)
    for name, key in UNIT_FILES.items():
        if (before / name).is_file() or (after / name).is_file():
            yield name, _lines(before / name, key), _lines(after / name, key)


def diff(before: Path, after: Path) -> dict[str, object]:
    """Per table (and per-unit file): row counts and every differing (key, column, before,
    after)."""
    out: dict[str, object] = {}
    for table, a, b in _tables(before, after):
        cells = [
            {"key": list(key), "column": col, "before": a[key].get(col), "after": b[key].get(col)}
            for key in sorted(set(a) & set(b), key=str)
            for col in sorted(set(a[key]) | set(b[key]))
            if a[key].get(col) != b[key].get(col)
        ]
        out[table] = {"rows_before": len(a), "rows_after": len(b),
                      "only_before": [list(k) for k in sorted(set(a) - set(b), key=str)],
                      "only_after": [list(k) for k in sorted(set(b) - set(a), key=str)],
                      "columns_compared": sorted(next(iter(a.values()), {})),
                      "differing_cells": cells}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    for path in (args.before, args.after):
        if not (path / "run.db").is_file():
            print(f"error: {path}/run.db not found (pass a run directory)", file=sys.stderr)
            return 2
    result = diff(args.before, args.after)
    same = all(not t["differing_cells"] and not t["only_before"] and not t["only_after"]
               for t in result.values())
    if args.json:
        print(json.dumps({"identical": same, **result}, indent=2, default=str))
    else:
        for table, t in result.items():
            print(f"{table}: {t['rows_before']} rows before, {t['rows_after']} after, "
                  f"{len(t['columns_compared'])} columns compared, "
                  f"{len(t['differing_cells'])} differing cells")
            for cell in t["differing_cells"][:20]:
                print(f"  {cell['key']} {cell['column']}: {cell['before']!r} -> {cell['after']!r}")
        print("identical" if same else "DIFFERENT")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
