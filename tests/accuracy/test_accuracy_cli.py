"""`edgeagent accuracy` end to end on the tiny Qwen-template model: the run directory it
leaves (per-sample file, MLPerf-shaped results, run.db metrics per sample), --rescore and the
gate, a stop and a second Ctrl-C each resumed, the same records through --endpoint, and the
user errors (one line, exit 2). Runs that need BFCL's data are skipped, with the reason,
without the [accuracy] extra; the errors that do not need it run either way."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from edgeagent import cli
from edgeagent.accuracy import (
    AstChecker,
    Selection,
    breakdown,
    execute_accuracy,
    read_samples,
    score_of,
)
from edgeagent.config import load_config
from edgeagent.engine.build import llamacpp_engine
from edgeagent.errors import UserError
from edgeagent.rundir import ACCURACY_RESULTS_FILE, ACCURACY_SAMPLES_FILE, open_run_db

try:
    AstChecker()
    MISSING = ""
except UserError as exc:
    MISSING = str(exc)
needs_bfcl = pytest.mark.skipif(bool(MISSING),
                                reason=f"needs the [accuracy] extra (bfcl-eval): {MISSING}")

# short prompts in the tiny vocabulary (its 2,048-token context holds them), one dropped
# live_relevance record among them (its prompt does not fit): both paths are exercised
SUBSETS = "simple_python,irrelevance,live_simple,live_relevance"
QUICK = ("--subset", SUBSETS, "--limit", "6", "--max-new-tokens", "8", "--threads", "1",
         "--power-estimate-tdp", "10")


def accuracy(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["accuracy", *args])
    out, err = capsys.readouterr()
    return code, out, err


def run_dir_of(out: str) -> Path:
    line = next(x for x in out.splitlines() if x.startswith("results: "))
    return Path(line.split()[1]).parent


def task_rows(run_dir: Path) -> list[dict[str, Any]]:
    db = open_run_db(run_dir)
    try:
        return [dict(r) for r in db.execute("SELECT * FROM tasks ORDER BY task_id, attempt")]
    finally:
        db.close()


@pytest.fixture(scope="module")
def quick_run(tiny_tools_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    if MISSING:
        pytest.skip(f"needs the [accuracy] extra (bfcl-eval): {MISSING}")
    out = tmp_path_factory.mktemp("accuracy")
    code = cli.main(["accuracy", "--model", str(tiny_tools_model_path), *QUICK,
                     "--out", str(out)])
    assert code == 0
    (run_dir,) = out.iterdir()
    return run_dir


@pytest.mark.slow
@needs_bfcl
def test_the_run_directory_holds_every_sample_its_results_and_its_metrics(
        quick_run: Path) -> None:
    samples = [json.loads(x) for x in (quick_run / ACCURACY_SAMPLES_FILE).read_text().splitlines()]
    assert len(samples) == 6 and {s["subset"] for s in samples} == set(SUBSETS.split(","))
    for s in samples:
        assert {"id", "subset", "raw_output", "native_calls", "parsed_calls", "valid",
                "checker_error", "checker_error_type", "rule"} <= set(s)
    completed = [s for s in samples if s["status"] == "completed"]
    dropped = [s for s in samples if s["status"] != "completed"]
    assert completed and dropped and all(s["reason"] for s in dropped)
    document = json.loads((quick_run / ACCURACY_RESULTS_FILE).read_text())
    score = score_of(document)
    # the breakdown is the aggregate of the file's own verdicts (dropped ones fail)
    assert score == breakdown([(s["subset"], s["score"]) for s in completed],
                              [s["subset"] for s in dropped])
    assert score["total_samples"] == len(completed) and score["issued_samples"] == 6
    assert document["edgeagent"]["seed"] == 42 and document["edgeagent"]["temperature"] == 0
    rows = {r["task_id"]: r for r in task_rows(quick_run)}
    assert set(rows) == {s["id"] for s in samples}
    for s in completed:  # TTFT, decode and energy per phase, per sample (CPU x TDP here)
        row = rows[s["id"]]
        assert row["steps"] == 1 and row["outcome"] in ("correct", "incorrect")
        assert row["prefill_ms"] > 0 and row["energy_prefill_j"] is not None
        assert row["energy_decode_j"] is not None
        assert s["calls_source"] is None  # in process: the engine's own reading
    for s in dropped:  # could not be answered: a failed sample, not a harness error
        assert s["status"] == "context_overflow"
        assert (rows[s["id"]]["outcome"], rows[s["id"]]["termination"]) == (
            "incorrect", "context_overflow")
    provenance = json.loads((quick_run / "provenance.json").read_text())
    assert provenance["accuracy"]["max_new_tokens"] == 8
    assert provenance["accuracy"]["bfcl_eval_version"] == provenance["accuracy"][
        "bfcl_eval_pinned"]


@pytest.mark.slow
@needs_bfcl
def test_rescore_gives_the_recorded_verdicts_and_shows_the_gate(
        quick_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = json.loads((quick_run / ACCURACY_RESULTS_FILE).read_text())
    code, out, _ = accuracy(capsys, "--rescore", str(quick_run), "--reference", "86.23")
    after = json.loads((quick_run / ACCURACY_RESULTS_FILE).read_text())
    assert score_of(after) == score_of(before)
    assert "rescored: 0 verdict(s) differ" in out
    gate = after["edgeagent"]["gate"]
    assert gate["threshold"] == pytest.approx(0.97 * 86.23)
    assert gate["passed"] == (score_of(after)["overall_accuracy"] >= gate["threshold"])
    assert "gate: overall_accuracy" in out and code == (0 if gate["passed"] else 1)


class _Aborting:
    """The real tiny engine, but a second Ctrl-C (KeyboardInterrupt) arrives during the
    generation of call number `at`."""

    def __init__(self, engine: Any, at: int) -> None:
        self.engine, self.at, self.calls = engine, at, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def generate(self, messages: Any, **kw: Any) -> Any:
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return self.engine.generate(messages, **kw)


def _config(model: Path, out: Path) -> Any:
    return load_config(None, {"model": str(model), "out": str(out), "threads": 1, "seed": 42,
                              "max_new_tokens": 8, "n_ctx": 2048})


@pytest.mark.slow
@needs_bfcl
def test_a_stop_then_resume_keeps_each_sample_once(
        tiny_tools_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done: list[str] = []
    first = execute_accuracy(_config(tiny_tools_model_path, tmp_path), Selection(
        ("simple_python", "irrelevance"), 4), progress=False,
        on_sample=lambda s, n, total, fresh: done.append(s.id),
        stop_requested=lambda: len(done) >= 2)
    assert first.status == "interrupted" and len(read_samples(first.run_dir)) == 2
    assert score_of(first.document)["issued_samples"] == 4  # the rest count as failures
    with (first.run_dir / ACCURACY_SAMPLES_FILE).open("a") as f:
        f.write('{"id": "simple_python_0", "subs')  # a line a kill cut short
    code, out, err = accuracy(capsys, "--resume", str(first.run_dir), "--threads", "1")
    assert code == 0, err
    lines = (first.run_dir / ACCURACY_SAMPLES_FILE).read_text().splitlines()
    assert len(lines) == 4 and len({json.loads(x)["id"] for x in lines}) == 4
    assert [r["attempt"] for r in task_rows(first.run_dir)] == [0, 0, 0, 0]
    assert score_of(json.loads((first.run_dir / ACCURACY_RESULTS_FILE).read_text()))[
        "total_samples"] == 4


@pytest.mark.slow
@needs_bfcl
def test_a_second_ctrl_c_mid_sample_then_resume_runs_it_again(
        tiny_tools_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    selection = Selection(("irrelevance",), 3)
    with pytest.raises(KeyboardInterrupt):
        execute_accuracy(_config(tiny_tools_model_path, tmp_path), selection, progress=False,
                         engine_factory=lambda p, s: _Aborting(llamacpp_engine(p, s), 2))
    (run_dir,) = tmp_path.iterdir()
    cut = [r for r in task_rows(run_dir) if r["termination"] == "interrupted"]
    assert len(cut) == 1 and cut[0]["attempt"] == 0
    assert json.loads((run_dir / ACCURACY_RESULTS_FILE).read_text())  # written however it ended
    code, _, err = accuracy(capsys, "--resume", str(run_dir))
    assert code == 0, err
    rows = task_rows(run_dir)
    again = [r for r in rows if r["task_id"] == cut[0]["task_id"]]
    assert [(r["attempt"], r["termination"]) for r in again] == [
        (0, "interrupted"), (1, "completed")]
    assert {json.loads(x)["attempt"] for x in (run_dir / ACCURACY_SAMPLES_FILE).read_text()
            .splitlines() if json.loads(x)["id"] == cut[0]["task_id"]} == {1}


@contextlib.contextmanager
def _llama_cpp_server(model: Path) -> Iterator[str]:
    import httpx

    log = tempfile.TemporaryFile()
    with socket.socket() as s:  # a free port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(model),
                             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
                             "--n_threads", "1"], stdout=subprocess.DEVNULL, stderr=log)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/models", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


@pytest.mark.slow
@needs_bfcl
def test_the_same_records_and_prompts_through_an_endpoint(
        quick_run: Path, tiny_tools_model_path: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    if importlib.util.find_spec("llama_cpp.server") is None:
        pytest.skip("needs llama-cpp-python's server (the [server] extra)")
    with _llama_cpp_server(tiny_tools_model_path) as url:
        code, out, err = accuracy(capsys, "--endpoint", url, "--tokenizer",
                                  str(tiny_tools_model_path), *QUICK, "--out", str(tmp_path))
    assert code == 0, err
    here, there = read_samples(quick_run), read_samples(run_dir_of(out))
    assert list(here) == list(there)  # the same records, in the same order
    for sid, sample in here.items():
        assert there[sid].status == sample.status
        if sample.completed:  # the same prompt, token for token, with the tools rendered
            assert there[sid].context_tokens == sample.context_tokens


# -- user errors: one line naming the flag and the fix, exit 2 ------------------------------

@pytest.mark.parametrize("args, words", [
    (("--subset", "simple_ruby"), "--subset simple_ruby: not a BFCL v4 single-turn subset"),
    (("--limit", "0"), "--limit 0"),
    (("--reference", "150"), "--reference 150"),
    (("--tool-format", "text"), "--tool-format does not apply"),
    (("--resume", "x", "--limit", "2"), "drop --subset and --limit"),
])
def test_a_bad_flag_is_one_line_and_exit_2(args: tuple[str, ...], words: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = accuracy(capsys, *args)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_without_the_extra_the_error_names_it(
        tiny_tools_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "bfcl_eval" else real(name, *a))
    code, _, err = accuracy(capsys, "--model", str(tiny_tools_model_path), "--limit", "1",
                            "--out", str(tmp_path))
    assert code == 2 and "pip install 'edgeagent[accuracy]'" in err
    assert len(err.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


@needs_bfcl
def test_a_template_without_tools_and_a_run_that_is_not_accuracy_are_refused(
        tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = accuracy(capsys, "--model", str(tiny_model_path), "--limit", "1",
                            "--out", str(tmp_path))
    assert code == 2 and "has no native tool-call syntax" in err and "--model" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = accuracy(capsys, "--resume", str(tmp_path))
    assert code == 2 and len(err.strip().splitlines()) == 1
