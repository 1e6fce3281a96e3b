"""`edgeagent run --tool-format`: native tool calls through the model's own template, the
text protocol (what `auto` gives a live run, and the fallback), the format recorded in the
run and its report.

The tiny model carries Qwen2.5-Coder's template (Hermes `<tool_call>` syntax); its output is
noise, so what is checked is the protocol around it: the system prompt, the messages the
trajectory records, KV reuse across native turns, format errors kept as records."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.results.report import render_report

COMMON = ("--suite", "smoke", "--task", "fix-add", "--max-steps", "3", "--max-new-tokens",
          "48", "--n-ctx", "4096", "--threads", "1", "--headless", "--no-draft-first")


def _run(model: Path, out: Path, *flags: str) -> tuple[int, str, Path | None]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = cli.main(["run", "--model", str(model), "--out", str(out), *COMMON, *flags])
    dirs = list(out.iterdir()) if out.exists() else []
    return code, stdout.getvalue() + stderr.getvalue(), dirs[0] if dirs else None


def _trajectory(run_dir: Path) -> list[dict]:
    path = run_dir / "trajectories" / "fix-add.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def native_run(tiny_tools_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    code, out, run_dir = _run(tiny_tools_model_path, tmp_path_factory.mktemp("native"),
                              "--tool-format", "native")
    assert run_dir is not None, out
    assert code in (0, 1), out  # a noise model resolves nothing; the run itself completes
    return run_dir


@pytest.mark.slow
def test_native_is_recorded(native_run: Path) -> None:
    prov = json.loads((native_run / "provenance.json").read_text())
    assert prov["tool_format"]["requested"] == "native"
    assert prov["tool_format"]["resolved"] == "native"
    assert prov["tool_format"]["family"] == "hermes"
    assert prov["model"]["tool_family"] == "hermes"
    assert "tool format  native (hermes)" in render_report(native_run)


@pytest.mark.slow
def test_native_prompt_leaves_the_tools_to_the_template(native_run: Path) -> None:
    started = next(e for e in _trajectory(native_run) if e["type"] == "task_started")
    system = started["system_prompt"]
    assert "Tools:\n" not in system and '{"name": "<tool>"' not in system
    assert "read_file" in system  # the workflow hints stay


@pytest.mark.slow
def test_native_steps_reuse_the_cache_and_record_calls_or_format_errors(
    native_run: Path,
) -> None:
    from edgeagent.rundir import open_run_db

    db = open_run_db(native_run)
    try:
        steps = db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    finally:
        db.close()
    assert len(steps) >= 2
    for step in steps:
        assert (step["action_name"] is None) != (step["format_error"] is None)
    for prev, step in zip(steps, steps[1:], strict=False):
        # the previous prompt and everything generated (but its last token) is in the cache
        assert step["reused_tokens"] == prev["context_tokens"] + prev["decoded_tokens"] - 1
        assert step["prefill_tokens"] == step["context_tokens"] - step["reused_tokens"]


@pytest.mark.slow
def test_text_format_is_the_old_protocol_and_recorded(
    tiny_tools_model_path: Path, tmp_path: Path
) -> None:
    code, out, run_dir = _run(tiny_tools_model_path, tmp_path, "--tool-format", "text")
    assert run_dir is not None, out
    prov = json.loads((run_dir / "provenance.json").read_text())
    assert prov["tool_format"]["resolved"] == "text"
    assert prov["tool_format"]["family"] == "hermes"  # native was possible, text was asked
    started = next(e for e in _trajectory(run_dir) if e["type"] == "task_started")
    assert "Tools:\n" in started["system_prompt"]


@pytest.mark.slow
def test_auto_gives_a_live_run_text_and_says_why(tiny_tools_model_path: Path,
                                                 tmp_path: Path) -> None:
    code, out, run_dir = _run(tiny_tools_model_path, tmp_path)
    assert run_dir is not None, out
    fmt = json.loads((run_dir / "provenance.json").read_text())["tool_format"]
    assert (fmt["requested"], fmt["resolved"], fmt["family"]) == ("auto", "text", "hermes")
    assert "docs/results.md" in fmt["reason"] and "--tool-format native" in fmt["reason"]


@pytest.mark.slow
def test_a_template_without_tools_falls_back_to_text(tiny_model_path: Path, tmp_path: Path
                                                     ) -> None:
    code, out, run_dir = _run(tiny_model_path, tmp_path, "--n-ctx", "2048")
    assert run_dir is not None, out
    fmt = json.loads((run_dir / "provenance.json").read_text())["tool_format"]
    assert fmt["resolved"] == "text" and fmt["family"] is None
    assert fmt["reason"].startswith("fallback")


@pytest.mark.slow
def test_native_on_a_template_without_tools_is_a_one_line_user_error(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    code, out, _ = _run(tiny_model_path, tmp_path, "--n-ctx", "2048", "--tool-format", "native")
    assert code == 2
    assert "--tool-format native" in out and "--tool-format text" in out
    assert "Traceback" not in out


def test_a_bad_tool_format_in_a_config_file_names_the_key(tmp_path: Path) -> None:
    config = tmp_path / "run.yaml"
    config.write_text("tool_format: sideways\n")
    code, out, _ = _run(Path("unused.gguf"), tmp_path / "out", "--config", str(config))
    assert code == 2
    assert "tool_format" in out and "auto, native, text" in out and "Traceback" not in out


def test_native_calls_that_do_not_fit_our_tools_are_format_errors() -> None:
    from edgeagent.agent.actions import Action, FormatError
    from edgeagent.agent.native import native_action
    from edgeagent.engine.base import Generation, ToolCall
    from edgeagent.sandbox.tools import TOOL_SPECS

    def gen(*calls: ToolCall, error: str | None = None) -> Generation:
        return Generation("", (), "stop", 1, 0, 1, 1, 0, 0, 0, 0,
                          tool_calls=calls, tool_call_error=error)

    ok = native_action(gen(ToolCall("c", "read_file", '{"path": "a.py"}')), TOOL_SPECS)
    assert ok == Action("read_file", {"path": "a.py"})
    for bad, why in [
        (gen(error="no tool call found in the output"), "no tool call found"),
        (gen(ToolCall("c", "rm_rf", "{}")), "unknown tool 'rm_rf'"),
        (gen(ToolCall("c", "read_file", "[1]")), "must be a JSON object"),
        (gen(ToolCall("c", "read_file", "{")), "not JSON"),
        (gen(ToolCall("c", "read_file", "[" * 100_000)), "not JSON"),
    ]:
        parsed = native_action(bad, TOOL_SPECS)
        assert isinstance(parsed, FormatError) and why in parsed.message
