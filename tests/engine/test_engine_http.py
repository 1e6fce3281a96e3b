"""The OpenAI-compatible endpoint engine, against real servers on loopback.

1. llama-cpp-python's own server (`python -m llama_cpp.server`) with the tiny model: a smoke
   task runs through it from the command line, and its token counts agree with the
   in-process engine and with the server's own usage numbers on the same prompt.
2. A small stub server written here, which answers like llama-server and then misbehaves:
   a 503 then success, a 500, a 401, a broken stream, a malformed stream, a stall, a
   refused response_format. Every case is bounded in time.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from paths import FIXTURES

from edgeagent import cli
from edgeagent.agent.actions import action_constraint, action_grammar
from edgeagent.agent.native import native_constraint
from edgeagent.engine.base import ContextOverflow, EngineError, Message, ToolCall
from edgeagent.engine.http import EndpointSettings, HttpEngine, base_url, wire_message
from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings
from edgeagent.engine.tool_format import tool_call_grammar
from edgeagent.results.report import render_report
from edgeagent.rundir import open_run_db
from edgeagent.sandbox.tools import TOOL_SPECS

NO_ARG_SPECS = [s for s in TOOL_SPECS if s.name in ("run_tests", "submit")]
MESSAGES = [
    Message("system", "You are a coding agent. Answer with one JSON tool call."),
    Message("user", "Fix calc.py: add() subtracts."),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ------------------------------------------------------------ llama-cpp-python's server


@pytest.fixture(scope="module")
def llama_server(tiny_model_path: Path) -> Iterator[str]:
    yield from _serve(tiny_model_path)


@pytest.fixture(scope="module")
def tools_server(tiny_tools_model_path: Path) -> Iterator[str]:
    """The server on the tiny model with Qwen2.5-Coder's template (native tools)."""
    yield from _serve(tiny_tools_model_path, n_ctx=4096)


def _serve(model: Path, n_ctx: int = 2048) -> Iterator[str]:
    port = _free_port()
    # its log goes to a file: a pipe nobody reads fills up and blocks the server mid-request
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", "1"],
        stdout=subprocess.DEVNULL, stderr=log,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail(f"llama_cpp.server exited: {log.read().decode()[-2000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/models", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not come up within 60 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.mark.slow
def test_token_counts_agree_with_the_in_process_engine(
    llama_server: str, tiny_model_path: Path
) -> None:
    grammar = action_grammar(NO_ARG_SPECS)
    http = HttpEngine(EndpointSettings(url=llama_server, tokenizer=tiny_model_path, n_ctx=2048))
    try:
        assert http.server_kind == "llama-cpp-python" and http.constraint == "gbnf"
        served = http.generate(MESSAGES, max_tokens=64, grammar=grammar)
    finally:
        http.close()
    local = LlamaCppEngine(tiny_model_path, EngineSettings(n_ctx=2048, threads=1))
    try:
        inproc = local.generate(MESSAGES, max_tokens=64, grammar=grammar)
    finally:
        local.close()
    # the server's own count, from a non-streamed request (its stream carries no usage)
    usage = httpx.post(llama_server + "/chat/completions", timeout=60, json={
        "messages": [{"role": m.role, "content": m.content} for m in MESSAGES],
        "max_tokens": 64, "grammar": grammar, "temperature": 0, "repeat_penalty": 1.0,
    }).json()["usage"]  # fmt: skip

    assert served.text == inproc.text  # same greedy tokens under the same grammar
    assert served.finish_reason == inproc.finish_reason == "stop"
    assert served.context_tokens == inproc.context_tokens == usage["prompt_tokens"]
    # decoded counts the end-of-generation token, which the server's usage leaves out
    assert served.decoded_tokens == inproc.decoded_tokens == usage["completion_tokens"] + 1
    assert served.extra["token_counts"] == "prompt: tokenizer; output: stream deltas"
    assert served.t_start_ns <= served.t_prefill_start_ns < served.t_first_token_ns
    assert served.t_first_token_ns <= served.t_end_ns
    assert len(served.token_times_ns) == served.decoded_tokens  # the end token timed too
    assert served.tpot_ms is not None and served.tpot_ms > 0
    assert served.extra["request_ms"] >= served.decode_ms


@pytest.mark.slow
def test_a_smoke_task_runs_through_the_endpoint(
    llama_server: str, tiny_model_path: Path, tmp_path: Path
) -> None:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([
            "run", "--endpoint", llama_server, "--tokenizer", str(tiny_model_path),
            "--suite", "smoke", "--task", "fix-add", "--out", str(tmp_path),
            "--max-steps", "2", "--max-new-tokens", "24", "--n-ctx", "2048",
        ])  # fmt: skip
    assert code == 0, stdout.getvalue()
    (run_dir,) = tmp_path.iterdir()
    db = open_run_db(run_dir)
    try:
        run = db.execute("SELECT * FROM runs").fetchone()
        task = db.execute("SELECT * FROM tasks").fetchone()
        steps = db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    finally:
        db.close()
    assert run["status"] == "complete"
    assert task["outcome"] == "unresolved" and task["error"] is None  # noise fixes nothing
    assert 1 <= len(steps) <= 2
    for s in steps:
        assert s["context_tokens"] > 0 and s["decoded_tokens"] > 0
        assert s["token_counts"] == "prompt: tokenizer; output: stream deltas"
        assert s["request_ms"] > 0 and s["retries"] == 0
        assert s["ttft_ms"] > 0
    prov = json.loads((run_dir / "provenance.json").read_text())
    assert prov["model"]["endpoint"] == llama_server
    assert prov["model"]["served_model"] == str(tiny_model_path)
    assert prov["model"]["server_locality"] == "local"
    assert "includes its work" in prov["model"]["energy_scope"]
    assert prov["model"]["path"] == str(tiny_model_path)  # the tokenizer
    assert f"endpoint {llama_server}  (llama-cpp-python, local server" in render_report(run_dir)


@pytest.mark.slow
def test_a_server_with_a_smaller_context_ends_each_task_clearly(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    # llama_cpp.server does not report its window and refuses a streamed over-long prompt by
    # ending the stream (its reason goes to its own log): each task must end at once with the
    # server's words, and the verdict must say the run assumed a window the server lacks
    serving = _serve(tiny_model_path, n_ctx=256)
    url = next(serving)
    stdout = io.StringIO()
    try:
        with contextlib.redirect_stdout(stdout):
            code = cli.main([
                "run", "--endpoint", url, "--suite", "smoke", "--task", "fix-add",
                "--task", "fix-shout", "--out", str(tmp_path), "--max-steps", "2",
                "--max-new-tokens", "24",
            ])  # fmt: skip
    finally:
        serving.close()
    text = stdout.getvalue()
    assert code == 1, text
    assert "Result is: INVALID" in text and "n_ctx 8192 this run assumed" in text
    (run_dir,) = tmp_path.iterdir()
    db = open_run_db(run_dir)
    try:
        tasks = db.execute("SELECT * FROM tasks ORDER BY task_id").fetchall()
        retries = db.execute("SELECT COALESCE(SUM(retries), 0) FROM steps").fetchone()[0]
    finally:
        db.close()
    assert [t["task_id"] for t in tasks] == ["fix-add", "fix-shout"]
    for t in tasks:
        assert t["termination"] == "context_overflow", dict(t)
        assert "maximum context length is" in t["termination_detail"]  # the server's words
        assert f"[{t['task_id']}]   context_overflow: the server at {url}" in text
    assert retries == 0


@pytest.mark.slow
def test_a_replay_runs_through_the_endpoint(
    llama_server: str, tiny_model_path: Path, tmp_path: Path
) -> None:
    # the bundled MLPerf-format smoke workload, teacher-forced through the server
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([
            "replay", "--endpoint", llama_server, "--tokenizer", str(tiny_model_path),
            "--conversations", "1", "--out", str(tmp_path), "--max-new-tokens", "24",
            "--n-ctx", "2048",
        ])  # fmt: skip
    assert code == 0, stdout.getvalue()
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "result_summary.json").read_text())
    assert summary["turns_dropped"] == 0 and summary["turns_completed"] == 4
    db = open_run_db(run_dir)
    try:
        steps = db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    finally:
        db.close()
    assert len(steps) == 4
    for s in steps:
        assert s["request_ms"] > 0 and s["decoded_tokens"] > 0
        assert s["token_counts"] == "prompt: tokenizer; output: stream deltas"
    prov = json.loads((run_dir / "provenance.json").read_text())
    assert prov["model"]["endpoint"] == llama_server


# ------------------------------------------------------------- native tools, same server

NATIVE_TOOLS = [
    {"type": "function", "function": {"name": "pick", "description": "choose", "parameters": {
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}},
    {"type": "function", "function": {"name": "submit", "description": "done",
                                      "parameters": {"type": "object", "properties": {}}}},
]
RECORDED_CALL = ToolCall("call00000", "pick", '{"n": 3}')
NATIVE_MESSAGES = [
    Message("system", "You fix issues."),
    Message("user", "Fix calc.py"),
    Message("assistant", None, tool_calls=(RECORDED_CALL,), reasoning_content="first, 3"),
    Message("tool", "picked 3", tool_call_id=RECORDED_CALL.id),
]


@pytest.mark.slow
def test_native_tools_through_the_server_agree_with_the_in_process_engine(
    tools_server: str, tiny_tools_model_path: Path
) -> None:
    """`tools` and native history (a recorded tool-call turn, a tool message) sent to the
    server: the same prompt tokens as in process (the server's own count too), the same
    greedy output under the native grammar, the same call read back."""
    http = HttpEngine(EndpointSettings(url=tools_server, tokenizer=tiny_tools_model_path,
                                       n_ctx=4096))
    try:
        assert http.tool_family == "hermes"
        grammar = native_constraint(http, NATIVE_TOOLS)
        served = http.generate(NATIVE_MESSAGES, max_tokens=64, grammar=grammar,
                               tools=NATIVE_TOOLS)
    finally:
        http.close()
    local = LlamaCppEngine(tiny_tools_model_path, EngineSettings(n_ctx=4096, threads=1))
    try:
        inproc = local.generate(NATIVE_MESSAGES, max_tokens=64,
                                grammar=native_constraint(local, NATIVE_TOOLS),
                                tools=NATIVE_TOOLS)
        template = local.template
    finally:
        local.close()
    # the server's own count, from a non-streamed request carrying what the engine sends:
    # the recorded call turn as the text the template writes for it
    wire = [wire_message(m) for m in NATIVE_MESSAGES]
    wire[2] = {"role": "assistant", "content": template.turn_text(NATIVE_MESSAGES[2],
                                                                   NATIVE_TOOLS)}
    usage = httpx.post(tools_server + "/chat/completions", timeout=60, json={
        "messages": wire, "tools": NATIVE_TOOLS, "max_tokens": 64, "temperature": 0,
        "repeat_penalty": 1.0, "grammar": grammar.gbnf,
    }).json()["usage"]  # fmt: skip

    assert served.context_tokens == inproc.context_tokens == usage["prompt_tokens"]
    assert served.text == inproc.text and served.decoded_tokens == inproc.decoded_tokens
    assert served.tool_calls and inproc.tool_calls
    assert [(c.name, c.args) for c in served.tool_calls] == [
        (c.name, c.args) for c in inproc.tool_calls]


def _cli(*args: str) -> tuple[int, str]:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stdout):
        code = cli.main(list(args))
    return code, stdout.getvalue()


def _steps(run_dir: Path) -> list:
    db = open_run_db(run_dir)
    try:
        return db.execute("SELECT * FROM steps ORDER BY task_id, step").fetchall()
    finally:
        db.close()


@pytest.mark.slow
def test_a_native_task_through_the_endpoint_counts_as_in_process(
    tools_server: str, tiny_tools_model_path: Path, tmp_path: Path
) -> None:
    common = ("--suite", "smoke", "--task", "fix-add", "--max-steps", "2",
              "--max-new-tokens", "32", "--n-ctx", "4096", "--threads", "1", "--headless",
              "--tool-format", "native", "--no-draft-first")  # the loop's first prompt
    code, out = _cli("run", "--endpoint", tools_server, "--tokenizer",
                     str(tiny_tools_model_path), "--out", str(tmp_path / "http"), *common)
    assert code in (0, 1), out
    code, out = _cli("run", "--model", str(tiny_tools_model_path),
                     "--out", str(tmp_path / "local"), *common)
    assert code in (0, 1), out
    (http_dir,), (local_dir,) = (tmp_path / "http").iterdir(), (tmp_path / "local").iterdir()
    for run_dir in (http_dir, local_dir):
        fmt = json.loads((run_dir / "provenance.json").read_text())["tool_format"]
        assert (fmt["resolved"], fmt["family"]) == ("native", "hermes")
    served, local = _steps(http_dir), _steps(local_dir)
    assert served and local
    # the first prompt (system, task, the template's tools block) is the same work; later
    # ones follow from what was generated
    assert served[0]["context_tokens"] == local[0]["context_tokens"]
    assert served[0]["decoded_tokens"] == local[0]["decoded_tokens"]
    assert served[0]["action_name"] == local[0]["action_name"]


@pytest.mark.slow
def test_a_native_replay_through_the_endpoint_counts_as_in_process(
    tools_server: str, tiny_tools_model_path: Path, tmp_path: Path
) -> None:
    """An MLPerf-format conversation (tool calls, two results in one row, reasoning)
    replayed natively through the server and in process: every turn the same prompt and
    output token counts."""
    dataset = str(FIXTURES / "mlperf_native_conversation.jsonl")
    common = (dataset, "--max-new-tokens", "16", "--n-ctx", "4096", "--threads", "1")
    code, out = _cli("replay", "--endpoint", tools_server, "--tokenizer",
                     str(tiny_tools_model_path), "--out", str(tmp_path / "http"), *common)
    assert code in (0, 1), out
    code, out = _cli("replay", "--model", str(tiny_tools_model_path),
                     "--out", str(tmp_path / "local"), *common)
    assert code in (0, 1), out
    (http_dir,), (local_dir,) = (tmp_path / "http").iterdir(), (tmp_path / "local").iterdir()
    for run_dir in (http_dir, local_dir):
        fmt = json.loads((run_dir / "provenance.json").read_text())["tool_format"]
        assert fmt["resolved"] == "native"
        summary = json.loads((run_dir / "result_summary.json").read_text())
        assert summary["turns_dropped"] == 0 and summary["turns_completed"] == 6
    served, local = _steps(http_dir), _steps(local_dir)
    assert [(s["context_tokens"], s["decoded_tokens"]) for s in served] == [
        (s["context_tokens"], s["decoded_tokens"]) for s in local]


# ------------------------------------------------------------------------ stub server


def _chunk(content: str | None = None, finish: str | None = None, **extra: object) -> bytes:
    delta = {"content": content} if content is not None else {}
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return f"data: {json.dumps(body)}\n\n".encode()


TIMINGS = {
    "prompt_n": 7, "prompt_ms": 12.5, "predicted_n": 3, "predicted_ms": 30.0,
    "cache_n": 33, "draft_n": 4, "draft_n_accepted": 3,
}


TEXT_CALL = '<tool_call>\n{"name": "pick", "arguments": {"n": 2}}\n</tool_call>'


class _Stub(BaseHTTPRequestHandler):
    """Path prefix = behaviour: /ok, /flaky, /err500, /auth, /broken, /garbage, /stall,
    /strict (refuses any response_format, like a server without structured output), /calls
    (structured tool_calls deltas), /textcall (a call left in the text), /plain (no call)."""

    requests: list[dict] = []
    flaky_calls = 0

    def log_message(self, *args: object) -> None:
        pass

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/props/props":  # llama-server's own report of its window
            return self._json(200, {"default_generation_settings": {"n_ctx": 3072}})
        if self.path.endswith(("/props", "/slots")):
            return self._json(404, {"error": {"message": "File Not Found"}})
        owner = "vllm" if self.path.startswith(("/strict", "/vllm")) else "llamacpp"
        entry = {"id": "stub-model", "owned_by": owner}
        if self.path.startswith("/vllm"):
            entry["max_model_len"] = 1024
        self._json(200, {"data": [entry]})

    def _stream_head(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Stub.requests.append({"path": self.path, "auth": self.headers.get("Authorization"),
                               **body})
        kind = self.path.split("/")[1]
        if kind == "flaky":
            _Stub.flaky_calls += 1
            if _Stub.flaky_calls == 1:
                return self._json(503, {"error": {"message": "loading model"}})
        if kind == "err500":
            return self._json(500, {"error": {"message": "boom inside the server"}})
        if kind == "auth":
            return self._json(401, {"error": {"message": "invalid api key"}})
        if kind == "strict" and "response_format" in body:
            return self._json(400, {"error": {"message": "response_format not supported"}})
        if kind == "toolong":  # llama-server's refusal
            return self._json(400, {"error": {
                "code": 400, "message": "the request exceeds the available context size, try "
                "increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000,
                "n_ctx": 4096}})
        if kind == "cut" and not body.get("stream"):  # llama_cpp.server's non-streamed refusal
            return self._json(400, {"error": {
                "message": "This model's maximum context length is 512 tokens. However, you "
                "requested 700 tokens (699 in the messages, 1 in the completion).",
                "type": "invalid_request_error", "code": "context_length_exceeded"}})
        self._stream_head()
        w = self.wfile.write
        if kind == "cut":  # llama_cpp.server refusing a streamed prompt: no chunk at all
            return
        if kind == "stall":
            time.sleep(5)
            return
        if kind == "calls":  # a server that parses the calls: tool_calls deltas
            for delta in ({"id": "abc", "function": {"name": "pick", "arguments": '{"n"'}},
                          {"function": {"arguments": ": 4}"}}):
                body = {"choices": [{"index": 0, "delta": {"tool_calls": [
                    {"index": 0, **delta}]}, "finish_reason": None}]}
                w(f"data: {json.dumps(body)}\n\n".encode())
            w(_chunk(finish="tool_calls"))
            w(b"data: [DONE]\n\n")
            return
        if kind in ("textcall", "plain"):  # a call left in the text (Hermes syntax), or none
            w(_chunk(TEXT_CALL if kind == "textcall" else "None of these functions fit."))
            w(_chunk(finish="stop"))
            w(b"data: [DONE]\n\n")
            return
        w(_chunk('{"name": "run_'))
        if kind == "broken":
            return  # the connection closes mid-answer
        if kind == "garbage":
            w(b"data: {not json\n\n")
            return
        w(_chunk('tests", "arguments": {}}'))
        w(_chunk(finish="stop", timings=TIMINGS,
                 usage={"prompt_tokens": 40, "completion_tokens": 3}))  # fmt: skip
        w(b"data: [DONE]\n\n")


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", _free_port()), _Stub)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _engine(url: str, **kw: object) -> HttpEngine:
    settings = {"backoff_s": 0.01, "turn_timeout_s": 10.0, "retries": 2, **kw}
    return HttpEngine(EndpointSettings(url=url, **settings))  # type: ignore[arg-type]


def _generate(engine: HttpEngine) -> object:
    return engine.generate(MESSAGES, max_tokens=32, grammar=action_constraint(TOOL_SPECS))


def test_native_requests_carry_tools_and_native_history(stub: str) -> None:
    """To llama-server: tools with tool_choice required and no custom grammar (it refuses
    one beside tools); a live turn as the text the model wrote, a recorded one with OpenAI
    tool_calls, tool messages by id; the server's tool_calls deltas read back as calls."""
    _Stub.requests.clear()
    live = Message("assistant", '<tool_call>\n{"name": "pick", "arguments": {"n": 1}}\n'
                   "</tool_call>", (1, 2, 3), tool_calls=(ToolCall("call00001", "pick",
                                                                   '{"n": 1}'),))
    history = [*NATIVE_MESSAGES, live, Message("tool", "picked 1", tool_call_id="call00001")]
    gen = _engine(stub + "/calls").generate(history, max_tokens=32, tools=NATIVE_TOOLS)
    sent = _Stub.requests[-1]
    assert sent["tools"] == NATIVE_TOOLS and sent["tool_choice"] == "required"
    assert "grammar" not in sent and "response_format" not in sent
    recorded, live_sent = sent["messages"][2], sent["messages"][4]
    assert recorded["content"] is None and recorded["reasoning_content"] == "first, 3"
    assert recorded["tool_calls"] == [RECORDED_CALL.wire_form()]
    assert live_sent == {"role": "assistant", "content": live.content}
    assert sent["messages"][5] == {"role": "tool", "content": "picked 1",
                                   "tool_call_id": "call00001"}
    assert gen.tool_calls == (ToolCall("abc", "pick", '{"n": 4}'),)


def test_native_requests_to_llama_server_carry_our_grammar_with_tool_choice_none(
        stub: str) -> None:
    """llama-server does not enforce tool_choice required (free text to the token budget,
    measured) and refuses a grammar beside a tool choice: given the family's grammar, the
    request carries the tools (so its template renders them), tool_choice none and the
    in-process engine's GBNF of one native call."""
    _Stub.requests.clear()
    grammar = tool_call_grammar("hermes", NATIVE_TOOLS)
    _engine(stub + "/calls").generate(NATIVE_MESSAGES, max_tokens=32, tools=NATIVE_TOOLS,
                                      grammar=grammar)
    sent = _Stub.requests[-1]
    assert sent["tools"] == NATIVE_TOOLS and sent["tool_choice"] == "none"
    assert sent["grammar"] == grammar.gbnf and "response_format" not in sent


@pytest.mark.parametrize("path", ["/calls", "/vllm"])
def test_a_callers_tool_choice_is_sent_as_given(stub: str, path: str) -> None:
    """MLPerf's accuracy phase asks "auto": sent so to llama-server and to vLLM alike, with
    the tools and no constraint of ours (the default stays "required", as above)."""
    _Stub.requests.clear()
    _engine(stub + path).generate(NATIVE_MESSAGES, max_tokens=32, tools=NATIVE_TOOLS,
                                  tool_choice="auto")
    sent = _Stub.requests[-1]
    assert sent["tools"] == NATIVE_TOOLS and sent["tool_choice"] == "auto"
    assert "grammar" not in sent and "response_format" not in sent


def test_a_tool_choice_beside_a_grammar_or_unknown_is_refused_before_sending(
        stub: str) -> None:
    _Stub.requests.clear()
    engine = _engine(stub + "/calls")
    with pytest.raises(ValueError, match="grammar already constrains"):
        engine.generate(NATIVE_MESSAGES, max_tokens=8, tools=NATIVE_TOOLS, tool_choice="auto",
                        grammar=tool_call_grammar("hermes", NATIVE_TOOLS))
    with pytest.raises(ValueError, match="give one of auto, none, required"):
        engine.generate(NATIVE_MESSAGES, max_tokens=8, tools=NATIVE_TOOLS, tool_choice="any")
    with pytest.raises(ValueError, match="goes with tools"):
        engine.generate(MESSAGES, max_tokens=8, tool_choice="auto")
    assert _Stub.requests == []


@pytest.mark.parametrize(("path", "source", "calls"), [
    ("/calls", "server", (ToolCall("abc", "pick", '{"n": 4}'),)),
    ("/textcall", "text", (ToolCall("call00000", "pick", '{"n": 2}'),)),
    ("/plain", None, ()),
])
def test_the_generation_says_where_its_calls_came_from(
        stub: str, tiny_tools_model_path: Path, path: str, source: str | None,
        calls: tuple[ToolCall, ...]) -> None:
    """The server's tool_calls, or calls read out of the text in the template's syntax (the
    tokenizer gives the family): MLPerf's scorer counts only the first."""
    engine = _engine(stub + path, tokenizer=tiny_tools_model_path)
    try:
        gen = engine.generate(NATIVE_MESSAGES, max_tokens=32, tools=NATIVE_TOOLS,
                              tool_choice="auto")
    finally:
        engine.close()
    assert gen.extra["calls_source"] == source
    assert gen.tool_calls == calls
    if source == "text":
        assert gen.text == TEXT_CALL  # the call is still there, as text


def test_base_url_accepts_the_usual_spellings() -> None:
    for given in ("http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/chat/completions"):
        assert base_url(given) == "http://h:1/v1"


def test_server_numbers_are_recorded_beside_the_client_view(stub: str) -> None:
    _Stub.requests.clear()
    gen = _generate(_engine(stub + "/ok"))
    sent = _Stub.requests[-1]
    assert sent["cache_prompt"] is True and sent["stream"] is True
    assert sent["grammar"] == action_grammar(TOOL_SPECS)  # llama-server gets the GBNF
    assert sent["model"] == "stub-model"
    assert gen.text == '{"name": "run_tests", "arguments": {}}'
    assert gen.context_tokens == 40 and gen.decoded_tokens == 3  # usage wins
    assert gen.reused_tokens == 33 and gen.prefill_tokens == 7  # timings.cache_n
    assert gen.engine_prefill_ms == 12.5 and gen.engine_decode_ms == 30.0
    assert gen.spec_drafted == 4 and gen.spec_accepted == 3
    assert gen.extra["token_counts"] == "prompt: server; output: server"
    assert gen.extra["server_cached_tokens"] == 33 and gen.extra["retries"] == 0


def test_streamed_deltas_reach_a_live_display_in_order(stub: str) -> None:
    pieces: list[str] = []
    gen = _engine(stub + "/ok").generate(MESSAGES, max_tokens=32, on_token=pieces.append)
    assert len(pieces) == gen.extra["chunks"] == 2 and "".join(pieces) == gen.text


def test_a_503_is_retried(stub: str) -> None:
    _Stub.flaky_calls = 0
    gen = _generate(_engine(stub + "/flaky"))
    assert gen.extra["retries"] == 1 and _Stub.flaky_calls == 2
    assert gen.text.startswith('{"name"')


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/err500", "boom inside the server"),
        ("/auth", "invalid api key"),
        ("/broken", "stream ended before the answer finished"),
        ("/garbage", "malformed stream"),
    ],
)
def test_failures_end_the_turn_with_the_servers_message(
    stub: str, path: str, message: str
) -> None:
    t0 = time.monotonic()
    with pytest.raises(EngineError, match=message):
        _generate(_engine(stub + path))
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize(("path", "requests", "window"), [("/toolong", 1, 4096), ("/cut", 2, 512)])
def test_a_prompt_refused_for_length_ends_the_turn_at_once(
    stub: str, path: str, requests: int, window: int
) -> None:
    # deterministic: never retried. A stream cut before its first token (llama_cpp.server's
    # way) is asked once more without streaming, which brings the server's reason back
    _Stub.requests.clear()
    engine = _engine(stub + path)
    assert engine.n_ctx == 8192 and engine.n_ctx_source.startswith("assumed n_ctx 8192")
    with pytest.raises(ContextOverflow, match="refused the prompt as longer than its context"):
        _generate(engine)
    assert len(_Stub.requests) == requests
    # the window the refusal names is the one the next tasks are budgeted against
    assert engine.n_ctx == window
    assert engine.provenance()["n_ctx_source"] == "the server's refusal of a long prompt"


@pytest.mark.parametrize(("path", "window", "source"), [
    ("/props", 3072, "/props default_generation_settings.n_ctx"),
    ("/vllm", 1024, "/v1/models max_model_len"),
    ("/ok", 8192, "assumed n_ctx 8192: the server (llama-server) does not report its context"),
])
def test_the_context_window_is_the_servers_own_where_it_reports_it(
    stub: str, path: str, window: int, source: str
) -> None:
    engine = _engine(stub + path)
    assert engine.n_ctx == window and engine.provenance()["n_ctx"] == window
    assert engine.provenance()["n_ctx_source"].startswith(source)


def test_a_stalled_server_times_out(stub: str) -> None:
    t0 = time.monotonic()
    with pytest.raises(EngineError, match="stalled"):
        _generate(_engine(stub + "/stall", turn_timeout_s=0.5))
    assert time.monotonic() - t0 < 3


def test_a_refused_response_format_falls_back_to_prompt_only(stub: str) -> None:
    _Stub.requests.clear()
    engine = _engine(stub + "/strict")
    assert engine.server_kind == "vllm" and engine.constraint == "json_schema"
    gen = _generate(engine)
    forms = [r.get("response_format", {}).get("type") for r in _Stub.requests]
    assert forms == ["json_schema", "json_object", None]
    assert gen.extra["constraint"] == "none"
    # remembered: the next turn goes prompt-only at once, and provenance says why
    _generate(engine)
    assert "response_format" not in _Stub.requests[-1]
    assert engine.provenance()["constraint_changes"][0].startswith("json_schema -> none")


@pytest.mark.slow
def test_an_engine_error_ends_the_task_with_the_servers_message(
    stub: str, tmp_path: Path
) -> None:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = cli.main([
            "run", "--endpoint", stub + "/err500", "--suite", "smoke", "--task", "fix-add",
            "--out", str(tmp_path), "--max-steps", "2", "--turn-timeout-s", "3",
        ])  # fmt: skip
    # every task ended in engine_error: INVALID, exit 1, as `edgeagent check` says
    assert code == 1
    text = stdout.getvalue()
    assert "None threads" not in text and f"endpoint {stub}/err500" in text
    assert "Result is: INVALID" in text and "smoke check" not in text
    (run_dir,) = tmp_path.iterdir()
    assert cli.main(["check", str(run_dir)]) == 1
    db = open_run_db(run_dir)
    try:
        task = db.execute("SELECT * FROM tasks").fetchone()
    finally:
        db.close()
    assert task["outcome"] == "error" and task["termination"] == "engine_error"
    assert "boom inside the server" in task["error"]
    prov = json.loads((run_dir / "provenance.json").read_text())
    assert prov["model"]["path"] is None and prov["model"]["tokenizer"] is None
    assert "estimated" in prov["model"]["token_counts"]


@pytest.mark.slow
def test_an_unreachable_endpoint_is_a_one_line_user_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main([
        "run", "--endpoint", f"http://127.0.0.1:{_free_port()}/v1", "--suite", "smoke",
        "--task", "fix-add", "--out", str(tmp_path),
    ])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "cannot reach" in err and "--endpoint" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_api_key_comes_from_the_named_environment_variable(
    stub: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("EDGEAGENT_TEST_KEY", "sk-test-123")
    _generate(_engine(stub + "/ok", api_key_env="EDGEAGENT_TEST_KEY"))
    assert _Stub.requests[-1]["auth"] == "Bearer sk-test-123"
    monkeypatch.delenv("EDGEAGENT_TEST_KEY")
    code = cli.main(["run", "--endpoint", stub + "/ok", "--api-key-env", "EDGEAGENT_TEST_KEY",
                     "--suite", "smoke", "--task", "fix-add", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "--api-key-env EDGEAGENT_TEST_KEY" in err
    assert len(err.strip().splitlines()) == 1


def test_endpoint_keys_load_from_a_config_file(tmp_path: Path) -> None:
    from edgeagent.config import load_config
    from edgeagent.errors import ConfigError

    cfg = tmp_path / "run.yaml"
    cfg.write_text("endpoint: http://127.0.0.1:8080/v1\nserved_model: qwen\n"
                   "endpoint_constraint: json_schema\nturn_timeout_s: 30\n")
    config = load_config(cfg)
    assert (config.endpoint, config.served_model) == ("http://127.0.0.1:8080/v1", "qwen")
    assert config.endpoint_constraint == "json_schema" and config.turn_timeout_s == 30.0
    cfg.write_text("turn_timeout_s: -1\n")
    with pytest.raises(ConfigError, match="turn_timeout_s"):
        load_config(cfg)
