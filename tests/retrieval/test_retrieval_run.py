"""search_code inside a run: an oracle-scripted engine on the smoke task fix-add with a fixture
power sensor (constant 4.11312 W), so the step record's retrieval times and energy can be
checked exactly; an oracle with a search_code step validates; a run without the extra says
why."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import paths
import pytest
from paths import ROOT

from edgeagent.cli import main
from edgeagent.config import RunConfig
from edgeagent.engine.base import Generation, Message
from edgeagent.retrieval import unavailable_reason
from edgeagent.run import execute_run

pytestmark = pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason()))

FIXTURES = paths.FIXTURES / "sysfs"
WATTS = 4.11312  # tests/fixtures/sysfs/hwmon/sbc: power1_input = 4113120 µW

# fix-add's oracle with a search step first: the evidence-gathering step under test
ORACLE = [
    {"name": "search_code", "arguments": {"query": "function that adds two numbers", "k": 2}},
    {"name": "edit", "arguments": {"path": "calc.py", "old": "return a - b",
                                   "new": "return a + b"}},
    {"name": "search_code", "arguments": {"query": "add", "k": 1}},
    {"name": "submit", "arguments": {}},
]


class OracleEngine:
    """Answers each turn with the next oracle action, timed like a (very fast) model."""

    n_ctx = 4096

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.actions = actions
        self.turn = 0

    def provenance(self) -> dict[str, Any]:
        return {"engine": "oracle"}

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text

    def generate(self, messages: list[Message], *, max_tokens: int, grammar: str | None = None,
                 max_context_tokens: int | None = None, on_token=None) -> Generation:
        text = json.dumps(self.actions[self.turn % len(self.actions)])
        self.turn += 1
        t0 = time.monotonic_ns()
        time.sleep(0.002)
        t1 = time.monotonic_ns()
        context = sum(len(m.content.split()) for m in messages)
        return Generation(
            text=text, tokens=(1, 2), finish_reason="stop", context_tokens=context,
            reused_tokens=0, prefill_tokens=context, decoded_tokens=2, t_start_ns=t0,
            t_prefill_start_ns=t0, t_first_token_ns=t1, t_end_ns=time.monotonic_ns(),
        )


@pytest.fixture(scope="module")
def oracle_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    mp = pytest.MonkeyPatch()
    mp.setenv("EDGEAGENT_INDEX_DIR", str(out / "indexes"))
    try:
        config = RunConfig(
            model=str(tiny_model_path), suite="smoke", tasks=("fix-add",), out=str(out),
            power_root=str(FIXTURES / "hwmon" / "sbc"), retrieval=True, retrieval_threads=1,
            draft_first=False,  # the oracle's steps, search_code first
        )
        result = execute_run(config, progress=False,
                             engine_factory=lambda path, cfg: OracleEngine(ORACLE))
    finally:
        mp.undo()
    assert result.status == "complete"
    return result.run_dir


@pytest.mark.slow
def test_search_code_step_records_embed_search_and_retrieval_energy(oracle_run: Path) -> None:
    db = sqlite3.connect(oracle_run / "run.db")
    db.row_factory = sqlite3.Row
    steps = db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    assert [s["action_name"] for s in steps] == ["search_code", "edit", "search_code", "submit"]
    first, edit, again = steps[0], steps[1], steps[2]
    assert first["tool_error"] == 0
    for s in (first, again):
        assert s["retrieval_embed_ms"] > 0 and s["retrieval_search_ms"] > 0
        assert s["retrieval_rerank_ms"] is None  # no reranker configured
        t0, t1 = s["t_retrieval_start_ns"], s["t_retrieval_end_ns"]
        assert s["t_tool_start_ns"] <= t0 < t1 <= s["t_tool_end_ns"]  # inside the tool phase
        assert s["retrieval_embed_ms"] + s["retrieval_search_ms"] + s["retrieval_index_ms"] \
            <= (t1 - t0) / 1e6 + 1e-6
        assert s["energy_retrieval_source"] == "hwmon:ina226/power1"
        assert s["energy_retrieval_j"] == pytest.approx(WATTS * (t1 - t0) / 1e9, rel=1e-6)
        assert s["energy_retrieval_j"] <= s["energy_tool_j"] * (1 + 1e-9)
    # the first call built the index (the task's build time); the second re-indexed the edit
    assert first["retrieval_index_cached"] == 0 and first["retrieval_index_ms"] > 0
    assert again["retrieval_index_cached"] is None and again["retrieval_files_reindexed"] == 1
    assert edit["energy_retrieval_j"] is None
    assert edit["energy_retrieval_null_reason"] == "no retrieval in this step"

    task = db.execute("SELECT * FROM tasks").fetchone()
    assert task["outcome"] == "resolved"
    assert task["retrieval_calls"] == 2
    assert task["retrieval_index_ms"] == pytest.approx(
        first["retrieval_index_ms"] + again["retrieval_index_ms"])
    assert task["energy_retrieval_j"] == pytest.approx(
        first["energy_retrieval_j"] + again["energy_retrieval_j"])
    prov = json.loads(db.execute("SELECT provenance_json FROM runs").fetchone()[0])
    assert prov["retrieval"]["model"] == "all-minilm-l6-v2-int8"
    assert prov["retrieval"]["onnx_sha256"].startswith("8199be6f")
    assert prov["retrieval"]["model_load_ms"] > 0  # loaded before the task, not in its steps


@pytest.mark.slow
def test_trajectory_shows_the_hits(oracle_run: Path) -> None:
    (traj,) = (oracle_run / "trajectories").iterdir()
    records = [json.loads(line) for line in traj.read_text().splitlines()]
    first = next(r for r in records if r.get("action_name") == "search_code")
    assert "calc.py:4-6" in first["observation"]
    assert "def add(a, b):" in first["observation"]


@pytest.mark.slow
def test_system_prompt_offers_search_code_only_with_retrieval(oracle_run: Path) -> None:
    (traj,) = (oracle_run / "trajectories").iterdir()
    text = traj.read_text()
    assert "search_code(query, k?)" in text


@pytest.mark.slow
def test_oracle_with_a_search_step_validates(tmp_path: Path) -> None:
    from edgeagent.sandbox.process import ProcessLimits
    from edgeagent.suite import load_suite, validate_task

    suite_dir = tmp_path / "suite"
    shutil.copytree(ROOT / "tasks" / "smoke" / "fix-add",
                    suite_dir / "fix-add")
    oracle = suite_dir / "fix-add" / "oracle.yaml"
    oracle.write_text("- tool: search_code\n  args: {query: add two numbers}\n"
                      + oracle.read_text())
    (task,) = load_suite(str(suite_dir)).tasks
    result = validate_task(task, ProcessLimits(timeout_s=60))
    assert result.ok, result.problems


def test_index_command_reports_times_and_hits(tmp_path: Path, monkeypatch,
                                              capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("EDGEAGENT_INDEX_DIR", str(tmp_path / "indexes"))
    repo = ROOT / "tasks" / "smoke" / "fix-add" / "repo"
    args = ["index", str(repo), "--query", "multiply numbers", "--k", "2", "--json",
            "--threads", "1"]
    assert main(args) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["index_cached"] is False and built["chunks"] > 0
    assert built["embed_ms"] > 0 and built["search_ms"] > 0 and built["rerank_ms"] is None
    assert len(built["hits"]) == 2 and built["hits"][0]["path"] == "calc.py"
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["index_cached"] is True
    assert main(["index", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a directory" in err[0]


@pytest.mark.slow
def test_run_with_retrieval_but_no_extra_says_what_to_install(
    tiny_model_path: Path, tmp_path: Path, monkeypatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr("edgeagent.retrieval.missing_dependencies", lambda: ["onnxruntime"])
    code = main(["run", "--model", str(tiny_model_path), "--out", str(tmp_path),
                 "--retrieval", "--task", "fix-add"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["edgeagent: error: retrieval: true: retrieval needs onnxruntime: install them "
                   "with pip install 'edgeagent[retrieval]' (or turn retrieval off)"]
