"""An accuracy run as `check` and `report` read it, and as it is asked and scored through an
endpoint: samples are correct or incorrect, one the model could not answer (context
overflow) is a failed sample and an engine error an invalid run; MLPerf's accuracy-phase
compliance checks by name; tool_choice "auto" on every request; through an endpoint only
the server's structured tool calls count as calls, as MLPerf's scorer counts them.

The records are crafted (BFCL's own come from the [accuracy] extra), all of subsets scored
by tool-call presence, which needs no AST checker, so these run without bfcl-eval."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

import edgeagent.accuracy.rescore as accuracy_rescore
import edgeagent.accuracy.workload as accuracy_run
from edgeagent.accuracy import (
    MIN_SAMPLE_COUNT,
    AccuracyResult,
    BfclRecord,
    Selection,
    execute_accuracy,
    read_samples,
    rescore_run,
    score_of,
)
from edgeagent.config import load_config
from edgeagent.engine import EngineError
from edgeagent.engine.build import llamacpp_engine
from edgeagent.rundir import ACCURACY_RESULTS_FILE, MLPERF_RESULTS_FILE, open_run_db

TOOL = {"type": "function", "function": {
    "name": "pick", "description": "choose a number", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}}
FUNCTION = {"name": "pick", "description": "choose a number", "parameters": {
    "type": "dict", "properties": {"n": {"type": "integer", "description": "n"}},
    "required": ["n"]}}


def crafted(subset: str, rid: str, question: str) -> BfclRecord:
    return BfclRecord(rid, subset, ({"role": "user", "content": question},), (TOOL,),
                      (FUNCTION,), ())


RECORDS = (
    crafted("irrelevance", "irrelevance_0", "What is the weather in Paris?"),
    crafted("live_relevance", "live_relevance_0", "Pick the number 3."),
    # far longer than the 2,048-token context: the model cannot answer it
    crafted("irrelevance", "irrelevance_long", "Tell me about Paris. " * 1500),
)


def no_checker(*args: Any) -> Any:
    raise AssertionError("the tool-call presence rules use no AST checker")


class _Recording:
    """The real engine, each generate()'s keywords kept; an EngineError on call `fail_at`."""

    def __init__(self, engine: Any, fail_at: int | None = None) -> None:
        self.engine, self.fail_at, self.calls = engine, fail_at, []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def generate(self, messages: Any, **kw: Any) -> Any:
        self.calls.append(kw)
        if len(self.calls) == self.fail_at:
            raise EngineError("the engine broke")
        return self.engine.generate(messages, **kw)


def run_accuracy(settings: dict[str, Any], records: tuple[BfclRecord, ...],
                 engine_factory: Any = None) -> AccuracyResult:
    """execute_accuracy on `records` in place of BFCL's sample."""
    config = load_config(None, {"threads": 1, "seed": 42, "max_new_tokens": 8,
                                "n_ctx": 2048, **settings})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accuracy_run, "select_records", lambda selection: list(records))
        return execute_accuracy(config, Selection(), progress=False, checker=no_checker,
                                engine_factory=engine_factory)


def task_rows(run_dir: Path) -> dict[str, dict[str, Any]]:
    db = open_run_db(run_dir)
    try:
        return {r["task_id"]: dict(r) for r in db.execute("SELECT * FROM tasks")}
    finally:
        db.close()


def check(run_dir: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    code, out, err = run_cli("check", str(run_dir), "--json", *extra)
    assert not err, err
    text_code, text, _ = run_cli("check", str(run_dir), *extra)
    assert text_code == code
    return code, json.loads(out), text


@pytest.fixture(scope="module")
def engines() -> list[_Recording]:
    return []


@pytest.fixture(scope="module")
def crafted_run(tiny_tools_model_path: Path, tmp_path_factory: pytest.TempPathFactory,
                engines: list[_Recording]) -> Path:
    def factory(path: Path, settings: Any) -> _Recording:
        engines.append(_Recording(llamacpp_engine(path, settings)))
        return engines[-1]

    out = tmp_path_factory.mktemp("crafted")
    result = run_accuracy({"model": str(tiny_tools_model_path), "out": str(out),
                           "power_estimate_tdp": 10.0}, RECORDS, factory)
    assert result.status == "complete"
    return result.run_dir


@pytest.mark.slow
def test_every_sample_is_asked_with_tool_choice_auto_in_process(
        crafted_run: Path, engines: list[_Recording]) -> None:
    (engine,) = engines
    # the overflowing record is refused before it reaches the engine's decode, not before
    # generate(): every record was asked, each with its tools and MLPerf's tool choice
    assert len(engine.calls) == len(RECORDS)
    assert all(kw["tool_choice"] == "auto" and kw["tools"] == [TOOL] for kw in engine.calls)
    provenance = json.loads((crafted_run / "provenance.json").read_text())
    assert provenance["accuracy"]["tool_choice"] == "auto"


@pytest.mark.slow
def test_a_sample_that_cannot_be_answered_is_a_failed_sample_not_an_invalid_run(
        crafted_run: Path) -> None:
    rows = task_rows(crafted_run)
    long = rows["irrelevance_long"]
    assert (long["outcome"], long["termination"]) == ("incorrect", "context_overflow")
    assert "context limit is 2048" in long["termination_detail"]
    assert {r["outcome"] for r in rows.values()} <= {"correct", "incorrect"}
    code, doc, text = check(crafted_run)
    assert code == 0 and doc["result"] != "INVALID" and not doc["reasons"], doc["reasons"]
    correct = sum(1 for r in rows.values() if r["outcome"] == "correct")
    note = next(n for n in doc["notes"] if n.startswith("accuracy samples:"))
    assert note.startswith(f"accuracy samples: {correct}/{len(RECORDS)} correct, "
                           f"{len(RECORDS) - correct} incorrect (1 could not be answered")
    assert f"ok: {note}" in text
    # the results count it as a failure of its subset, as before
    document = json.loads((crafted_run / ACCURACY_RESULTS_FILE).read_text())
    assert document["edgeagent"]["samples_dropped"] == 1


@pytest.mark.slow
def test_the_report_says_correct_or_incorrect_per_sample(crafted_run: Path) -> None:
    rows = task_rows(crafted_run)
    correct = sum(1 for r in rows.values() if r["outcome"] == "correct")
    code, text, err = run_cli("report", str(crafted_run))
    assert code == 0, err
    lines = text.splitlines()
    for task_id, row in rows.items():
        (line,) = [x for x in lines if x.startswith(task_id + " ")]
        assert line.split()[1] == row["outcome"]
    (total,) = [x for x in lines if x.startswith("total ")]
    assert f"{correct}/{len(RECORDS)} correct" in total and "res." not in total
    assert f"correct {correct}/{len(RECORDS)}" in text and "resolved" not in text
    assert "J per correct sample" in text and "per correct sample" in text
    code, out, err = run_cli("report", str(crafted_run), "--format", "json")
    assert code == 0, err
    metrics = json.loads(out)["metrics"]
    assert metrics["tasks_resolved"]["value"] == correct
    assert metrics["tasks_resolved"]["label"] == "samples correct"


@pytest.mark.slow
def test_an_engine_error_still_makes_the_run_invalid(
        tiny_tools_model_path: Path, tmp_path: Path) -> None:
    result = run_accuracy({"model": str(tiny_tools_model_path), "out": str(tmp_path)},
                          RECORDS[:2], lambda p, s: _Recording(llamacpp_engine(p, s), 1))
    rows = task_rows(result.run_dir)
    assert (rows["irrelevance_0"]["outcome"], rows["irrelevance_0"]["termination"]) == (
        "error", "engine_error")
    code, doc, _ = check(result.run_dir)
    assert code == 1 and doc["result"] == "INVALID"
    (reason,) = doc["reasons"]
    assert reason.startswith("task irrelevance_0 errored in the harness (engine_error")


# -- MLPerf's compliance checks on an accuracy run ------------------------------------------

def by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in doc["compliance"]["checks"]}


@pytest.mark.slow
def test_the_accuracy_phase_lists_mlperf_checks(crafted_run: Path) -> None:
    score = score_of(json.loads((crafted_run / ACCURACY_RESULTS_FILE).read_text()))
    code, doc, text = check(crafted_run)
    assert doc["compliance"]["phase"] == "accuracy"
    assert [c["name"] for c in doc["compliance"]["checks"]] == [
        "temperature==0", "seed==42", "single_stream", "min_sample_count"]
    checks = by_name(doc)
    assert all(checks[n]["passed"] for n in ("temperature==0", "seed==42", "single_stream"))
    # a quick run has fewer samples than MLPerf's ruleset asks for (995): not compliant
    minimum = checks["min_sample_count"]
    assert not minimum["passed"] and minimum["detail"].startswith(
        f"total_samples={score['total_samples']} >= {MIN_SAMPLE_COUNT}")
    assert doc["compliance"]["overall"] == "FAIL" and code == 0  # --strict makes it count
    assert f"[FAIL] min_sample_count: {minimum['detail']}" in text
    assert run_cli("check", str(crafted_run), "--strict")[0] == 1


@pytest.mark.slow
@pytest.mark.parametrize("reference", [20.0, 86.23])
def test_a_reference_adds_the_gate_on_overall_accuracy(crafted_run: Path,
                                                       reference: float) -> None:
    overall = score_of(json.loads((crafted_run / ACCURACY_RESULTS_FILE).read_text()))[
        "overall_accuracy"]
    _, doc, text = check(crafted_run, "--reference", str(reference))
    names = [c["name"] for c in doc["compliance"]["checks"]]
    assert names[-2:] == ["accuracy:overall_accuracy", "min_sample_count"]
    gate = by_name(doc)["accuracy:overall_accuracy"]
    assert gate["passed"] == (overall >= 0.97 * reference) and gate["mlperf"]
    assert gate["detail"] == f"{overall:.2f} >= {0.97 * reference:.2f} (=0.97 x {reference:g})"
    assert f"] accuracy:overall_accuracy: {gate['detail']}" in text


@pytest.mark.slow
@pytest.mark.parametrize("reference", ["0", "150"])
def test_a_reference_that_is_no_percentage_is_one_line_and_exit_2(
        crafted_run: Path, reference: str) -> None:
    code, _, err = run_cli("check", str(crafted_run), "--reference", reference)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"--reference {reference}: overall_accuracy is a percentage" in err
    assert "(0, 100]" in err


@pytest.mark.slow
def test_missing_results_fail_accuracy_results_present(crafted_run: Path,
                                                       tmp_path: Path) -> None:
    copy = Path(shutil.copytree(crafted_run, tmp_path / crafted_run.name))
    (copy / ACCURACY_RESULTS_FILE).unlink()
    (copy / MLPERF_RESULTS_FILE).unlink()  # MLPerf's own file, which the checks read first
    _, doc, _ = check(copy, "--reference", "86.23")
    assert [c["name"] for c in doc["compliance"]["checks"]][-1] == "accuracy_results_present"
    assert not by_name(doc)["accuracy_results_present"]["passed"]


# -- through an endpoint: what is sent, and which calls count --------------------------------

TEXT_CALL = '<tool_call>\n{"name": "pick", "arguments": {"n": 2}}\n</tool_call>'


class _Server(BaseHTTPRequestHandler):
    """llama-server-like: /calls answers with structured tool_calls, /text with the same
    call left in the text (a server that does not parse calls)."""

    requests: list[dict[str, Any]] = []

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.endswith("/models"):
            return self._send(200, json.dumps(
                {"data": [{"id": "stub", "owned_by": "llamacpp"}]}).encode())
        self._send(404, b'{"error": {"message": "File Not Found"}}')

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Server.requests.append(body)
        if self.path.startswith("/calls"):
            delta = {"tool_calls": [{"index": 0, "id": "c1", "function": {
                "name": "pick", "arguments": '{"n": 2}'}}]}
        else:
            delta = {"content": TEXT_CALL}
        chunks = [{"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        self._send(200, b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks)
                   + b"data: [DONE]\n\n", "text/event-stream")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
@pytest.mark.parametrize(("path", "source", "made_call"), [
    ("/calls", "server", True),  # a structured call on an irrelevance record: wrong
    ("/text", "text", False),  # the call left in the text: no call to MLPerf's scorer
])
def test_through_an_endpoint_only_the_servers_structured_calls_are_calls(
        server: str, tiny_tools_model_path: Path, tmp_path: Path, path: str, source: str,
        made_call: bool) -> None:
    _Server.requests.clear()
    result = run_accuracy({"endpoint": server + path, "tokenizer": str(tiny_tools_model_path),
                           "out": str(tmp_path), "endpoint_retries": 0}, RECORDS[:1])
    (sent,) = _Server.requests
    assert sent["tool_choice"] == "auto" and sent["tools"] == [TOOL]
    assert "grammar" not in sent
    (sample,) = read_samples(result.run_dir).values()
    assert sample.calls_source == source
    assert [c["name"] for c in sample.native_calls] == ["pick"]  # the engine read it either way
    assert sample.made_call is made_call and sample.valid is not made_call
    if source == "text":
        assert sample.output == sample.raw_output == TEXT_CALL  # scored as the text it is
    # scored again from the sample line, the source is kept: the same verdict
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(accuracy_rescore, "load_subset", lambda subset: list(RECORDS[:1]))
        assert rescore_run(result.run_dir, checker=no_checker).changed == ()
