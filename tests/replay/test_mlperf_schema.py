"""Every MLPerf-format file edgeagent writes validates under MLPerf's own row schema
(vendored in tests/fixtures/mlperf): the bundled replay datasets, the synthetic workload,
`edgeagent export --oracle`; and our loader reads every kind of row that schema accepts. The
export of a run with format errors is checked in test_replay_run.py, beside its round trip."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from mlperf_schema import row_errors, schema_errors
from paths import ROOT

from edgeagent import cli
from edgeagent.replay.dataset import dump_rows, load_dataset
from edgeagent.replay.synthetic import write_synthetic

REPLAY_DATASETS = sorted((ROOT / "tasks" / "replay").glob("*.jsonl"))


@pytest.mark.parametrize("path", REPLAY_DATASETS, ids=lambda p: p.name)
def test_bundled_replay_datasets_validate(path: Path) -> None:
    assert schema_errors(path) == []
    assert load_dataset(path)


def test_synthetic_conversations_validate(tmp_path: Path) -> None:
    for read_lines in (8, 60):
        path = write_synthetic(tmp_path / f"s{read_lines}.jsonl", 32, read_lines=read_lines)
        assert schema_errors(path) == []


def test_long_workload_is_what_its_generator_writes(tmp_path: Path) -> None:
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("gen", ROOT / "tasks" / "generators" / "gen_replay_long.py")
    assert spec is not None and spec.loader is not None
    gen = module_from_spec(spec)
    spec.loader.exec_module(gen)
    with contextlib.redirect_stdout(io.StringIO()):
        assert gen.main([str(tmp_path / "long.jsonl")]) == 0
    assert (tmp_path / "long.jsonl").read_text() == (ROOT / "tasks/replay/long.jsonl").read_text()


@pytest.mark.slow
def test_oracle_export_validates(tmp_path: Path) -> None:
    out = tmp_path / "smoke.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["export", "--oracle", "smoke", "-o", str(out)]) == 0
    assert schema_errors(out) == []


def test_the_schema_rejects_what_we_used_to_write() -> None:
    # a format-error turn was an assistant row with `tool_calls: []`: neither a plain message
    # (which has no tool_calls) nor a tool-call row (which needs one call)
    row = {"conversation_id": "c", "turn": 2, "role": "assistant", "content": "not a call"}
    assert row_errors(row) == []
    assert row_errors({**row, "tool_calls": []}) != []


def test_the_loader_reads_every_row_kind_the_schema_accepts(tmp_path: Path) -> None:
    call = {"id": "functions.bash:0", "type": "function",
            "function": {"name": "bash", "arguments": "{\"cmd\": \"cat foo.py\"}"}}
    rows = [
        {"conversation_id": "sim", "turn": 1, "role": "user", "content": "fix foo",
         "system": "You are an agent.", "tools": [{"type": "function", "function": {
             "name": "bash", "parameters": {"type": "object", "properties": {
                 "cmd": {"type": "string"}}}}}]},
        {"conversation_id": "sim", "turn": 2, "role": "assistant", "tool_calls": [call]},
        {"conversation_id": "sim", "turn": 3, "role": "tool", "tool_results": [
            {"tool_call_id": "functions.bash:0", "content": "def foo():\n    return 1/0"}]},
        {"conversation_id": "sim", "turn": 4, "role": "user", "content": "and now?",
         "temperature": 0.7, "max_new_tokens": 256, "top_p": 0.9},
        {"conversation_id": "sim", "turn": 5, "role": "assistant", "content": None,
         "tool_calls": [dict(call, id="functions.bash:1")]},
        {"conversation_id": "sim", "turn": 6, "role": "tool", "delay_seconds": 0.5,
         "tool_results": [{"tool_call_id": "functions.bash:1", "content": "ok"}]},
        {"conversation_id": "sim", "turn": 7, "role": "assistant", "content": "Fixed."},
    ]
    assert [e for row in rows for e in row_errors(row)] == []
    path = tmp_path / "sim.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (conv,) = load_dataset(path)
    assert conv.assistant_turns == 3 and conv.rows[-1].tool_calls is None
    written = tmp_path / "again.jsonl"
    written.write_text(dump_rows([conv]))
    assert schema_errors(written) == []
