"""A synthetic MLPerf-format conversation, deterministic in its seed: our agent's system prompt
and tools, then read/grep/test/edit/list tool calls with results of realistic size, ending in
submit. A workload of any length for replay (tasks/replay/long.jsonl is one, made by
tasks/generators/gen_replay_long.py) and for tools/bench_server.py (issue 23).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..agent import openai_tools, system_prompt
from ..sandbox import TOOL_SPECS
from .dataset import load_dataset

FILES = tuple(f"fleet/{m}.py" for m in ("fuel", "trips", "depots", "units", "money", "report"))
KINDS = ("read_file", "grep", "run_tests", "read_file", "edit", "list_dir")


def _python_file(rng: random.Random, name: str, lines: int) -> list[str]:
    out = [f'"""{name}: helpers for the fleet report."""', ""]
    while len(out) < lines:
        fn = rng.choice(["total", "average", "by_depot", "per_km", "fill_cost", "parse_row"])
        arg = rng.choice(["rows", "records", "entries"])
        out += [f"def {fn}_{len(out)}({arg}):",
                f'    """Return the {fn.replace("_", " ")} of the {arg}."""',
                f"    return sum(r['{rng.choice(['km', 'liters', 'cents'])}'] for r in {arg})",
                ""]  # fmt: skip
    return out[:lines]


def _call(kind: str, i: int, rng: random.Random, read_lines: int) -> tuple[dict[str, Any], str]:
    """(arguments, result text) of the i-th call, a `kind` tool call."""
    path = FILES[i % len(FILES)]
    if kind == "read_file":
        start = 1 + read_lines * (i // len(KINDS))
        body = _python_file(rng, path, read_lines)
        return ({"path": path, "start_line": start, "end_line": start + read_lines - 1},
                "\n".join(f"{start + n}| {line}" for n, line in enumerate(body)))
    if kind == "grep":
        word = rng.choice(["cents", "km", "liters", "depot"])
        return {"pattern": word}, "\n".join(
            f"{rng.choice(FILES)}:{rng.randint(1, 90)}:     return sum(r['{word}'] for r in rows)"
            for _ in range(6))
    if kind == "run_tests":
        failed = rng.randint(1, 3)
        return {}, "exit code 1\n" + "\n".join(
            [f"FAILED tests/test_report.py::test_cost_per_km_{n} - assert "
             f"{rng.randint(100, 999)} == {rng.randint(10, 99)}" for n in range(failed)]
            + ["", "E   assert 1234 == 123", "tests/test_report.py:18: AssertionError",
               f"{failed} failed, {rng.randint(5, 20)} passed in 0.{rng.randint(10, 99)}s"])
    if kind == "edit":
        return ({"path": "fleet/report.py", "old": "cents / km", "new": "cents / 10 / km"},
                "edited fleet/report.py: 1 replacement\n" + "\n".join(
                    f"{n}| {line}" for n, line in enumerate(_python_file(rng, "report", 5), 20)))
    if kind == "list_dir":
        return {}, "\n".join(["fleet/", "tests/", "README.md", "pyproject.toml"]
                             + [f.split("/")[1] for f in FILES])
    return {}, "submitted"


def synthetic_rows(turns: int, seed: int = 0, *, read_lines: int = 8,
                   system: str | None = None,
                   tools: Sequence[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """One conversation of `turns` assistant turns as MLPerf JSONL rows. `read_lines`: lines
    per read_file result (the context grows by about 9 tokens a line with Qwen's tokenizer);
    `system`, `tools`: our agent's own unless given."""
    rng = random.Random(seed)
    conv = f"synthetic-{turns}" + (f"-r{read_lines}" if read_lines != 8 else "")
    rows: list[dict[str, Any]] = [{
        "conversation_id": conv, "turn": 1, "role": "user",
        "system": system if system is not None else system_prompt(TOOL_SPECS),
        "tools": list(tools) if tools is not None else list(openai_tools()),
        "content": "Issue: the fuel report shows the cost per kilometre ten times too high\n\n"
                   "The report in fleet/report.py divides cents by kilometres but the fill "
                   "costs are stored in tenths of a cent.\n\nFiles in the repository: "
                   + ", ".join(FILES) + ", tests/test_report.py",
    }]  # fmt: skip
    turn = 2
    for i in range(turns):
        kind = "submit" if i == turns - 1 else KINDS[i % len(KINDS)]
        args, result = _call(kind, i, rng, read_lines)
        call_id = f"call_{i}"
        rows.append({"conversation_id": conv, "turn": turn, "role": "assistant",
                     "tool_calls": [{"id": call_id, "type": "function", "function": {
                         "name": kind, "arguments": json.dumps(args)}}]})
        rows.append({"conversation_id": conv, "turn": turn + 1, "role": "tool",
                     "tool_results": [{"tool_call_id": call_id,
                                       "content": f"Result of {kind}:\n{result}"}],
                     "delay_seconds": round(rng.uniform(0.01, 0.5), 3)})
        turn += 2
    return rows


def write_synthetic(path: Path, turns: int, seed: int = 0, **options: Any) -> Path:
    """synthetic_rows as a JSONL file, checked by the replay's own loader."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = synthetic_rows(turns, seed, **options)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    load_dataset(path)
    return path
