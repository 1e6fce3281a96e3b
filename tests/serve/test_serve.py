"""`edgeagent serve` through its public surface: the command started as a user starts it, a
real OpenAI client library talking to it, then the run directory it leaves read back.

The tiny random-weight models answer noise; what is checked is the wire (streaming or not,
tools, errors, a client that leaves mid-stream) and that every answered request is a step
whose token counts are the ones the response reported.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from serve_process import start_serve

from edgeagent.rundir import open_run_db

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

openai = pytest.importorskip("openai")

EDGEAGENT = Path(sys.executable).with_name("edgeagent")


@dataclass
class Served:
    proc: subprocess.Popen[str]
    url: str
    run_dir: Path

    def client(self, **kw: object) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.url, api_key="x", max_retries=0, **kw)

    def stop(self) -> str:
        self.proc.send_signal(signal.SIGINT)
        _, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return err


def _serve(model: Path, out: Path, *extra: str) -> Served:
    return Served(*start_serve(model, out, *extra))


@pytest.fixture
def served(tiny_model_path: Path, tmp_path: Path) -> Iterator[Served]:
    s = _serve(tiny_model_path, tmp_path / "runs")
    yield s
    if s.proc.poll() is None:
        s.proc.kill()
        s.proc.wait()


def _steps(run_dir: Path) -> list:
    db = open_run_db(run_dir)
    try:
        return db.execute("SELECT * FROM steps ORDER BY step").fetchall()
    finally:
        db.close()


def _trajectory(run_dir: Path) -> list[dict]:
    path = run_dir / "trajectories" / "serve.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_requests_become_steps_with_the_engines_counts(served: Served) -> None:
    client = served.client()
    messages = [{"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Say hello."}]
    first = client.chat.completions.create(model="any", messages=messages, max_tokens=8,
                                           temperature=0)
    assert first.object == "chat.completion"
    assert first.choices[0].message.role == "assistant"
    # stored before the answer went out, its tool interval (the agent's time) still open
    (answered,) = _steps(served.run_dir)
    assert answered["raw_output"] == first.choices[0].message.content
    assert answered["tool_ms"] == 0
    time.sleep(0.3)  # the agent's own time: the first step's tool phase
    messages += [{"role": "assistant", "content": first.choices[0].message.content},
                 {"role": "user", "content": "Again."}]
    second = client.chat.completions.create(model="any", messages=messages, max_tokens=8)
    served.stop()
    steps = _steps(served.run_dir)
    assert len(steps) == 2
    for step, response in zip(steps, (first, second), strict=True):
        assert step["context_tokens"] == response.usage.prompt_tokens
        assert step["reused_tokens"] == response.usage.prompt_tokens_details.cached_tokens
        assert step["prefill_tokens"] == step["context_tokens"] - step["reused_tokens"]
        assert step["raw_output"] == response.choices[0].message.content
    # the answer sent back is spliced in as the ids the engine generated: the second prompt
    # reuses the whole first prompt and answer from the KV cache (but the answer's last
    # token, sampled and never evaluated)
    assert steps[1]["reused_tokens"] >= (first.usage.prompt_tokens
                                         + first.usage.completion_tokens - 1)
    # the gap between the response and the next request: the stored row was replaced
    assert steps[0]["tool_ms"] >= 300
    first_step, _ = [e for e in _trajectory(served.run_dir) if e["type"] == "step"]
    assert first_step["observation"] == "Again."  # what the agent sent after the answer


def test_streaming_sends_the_same_text_and_usage(served: Served) -> None:
    client = served.client()
    stream = client.chat.completions.create(
        model="any", messages=[{"role": "user", "content": "Count."}], max_tokens=12,
        stream=True, stream_options={"include_usage": True})
    text, finish, usage = "", None, None
    for part in stream:
        if part.usage is not None:
            usage = part.usage
        for choice in part.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
    served.stop()
    (step,) = _steps(served.run_dir)
    assert text == step["raw_output"]
    assert finish in ("stop", "length")
    assert usage is not None and usage.prompt_tokens == step["context_tokens"]


def test_bad_requests_get_openai_errors_and_the_server_goes_on(served: Served) -> None:
    import httpx

    with httpx.Client(base_url=served.url) as http:
        r = http.post("/chat/completions", content=b"{not json",
                      headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
        r = http.post("/chat/completions", json={"messages": []})
        assert r.status_code == 400 and r.json()["error"]["param"] == "messages"
        r = http.post("/chat/completions",
                      json={"messages": [{"role": "robot", "content": "hi"}]})
        assert r.status_code == 400 and "role" in r.json()["error"]["message"]
        r = http.post("/chat/completions", json={"messages": [{"role": "user", "content": "x"}],
                                                 "temperature": "hot"})
        assert r.status_code == 400 and r.json()["error"]["param"] == "temperature"
        r = http.post("/chat/completions", json={"messages": [{"role": "user", "content": "x"}],
                                                 "grammar": "root ::= broken("})
        assert r.status_code == 400 and r.json()["error"]["param"] == "grammar"
        r = http.post("/chat/completions", json={"messages": [{"role": "user", "content": "x"}],
                                                 "n": 2})
        assert r.status_code == 400 and r.json()["error"]["param"] == "n"
        assert http.get("/nowhere").status_code == 404
        assert http.get("/models").json()["data"][0]["id"]
    client = served.client()
    with pytest.raises(openai.BadRequestError) as err:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                       max_tokens=100_000)
    assert err.value.code == "context_length_exceeded"
    ok = client.chat.completions.create(model="m", max_tokens=4,
                                        messages=[{"role": "user", "content": "still there?"}])
    assert ok.choices[0].message.content is not None
    served.stop()
    assert len(_steps(served.run_dir)) == 1  # refused requests make no step


def test_a_client_gone_mid_stream_loses_nothing_recorded(served: Served) -> None:
    client = served.client()
    client.chat.completions.create(model="m", max_tokens=4,
                                   messages=[{"role": "user", "content": "one"}])
    body = json.dumps({"model": "m", "stream": True, "max_tokens": 200,
                       "messages": [{"role": "user", "content": "a long story please"}]})
    host, port = served.url.removeprefix("http://").removesuffix("/v1").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall((f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                      f"application/json\r\nContent-Length: {len(body)}\r\n\r\n{body}").encode())
        assert b"200" in sock.recv(64)  # the stream began; leave mid-answer
    after = client.chat.completions.create(model="m", max_tokens=4,
                                           messages=[{"role": "user", "content": "three"}])
    assert after.choices[0].message.content is not None
    served.stop()
    steps = _steps(served.run_dir)
    assert [s["raw_output"] for s in steps][-1] == after.choices[0].message.content
    assert len(steps) in (2, 3)  # the cut stream is a step only if it had finished decoding


def test_native_tool_calls(tiny_tools_model_path: Path, tmp_path: Path) -> None:
    s = _serve(tiny_tools_model_path, tmp_path / "runs", "--n-ctx", "4096")
    try:
        # bounded arguments: a random-weight model would write a free string forever
        tools = [{"type": "function", "function": {
            "name": "bash", "description": "run a command",
            "parameters": {"type": "object", "properties": {
                "command": {"type": "string", "enum": ["ls", "pwd"]}},
                "required": ["command"]}}}]
        response = s.client().chat.completions.create(
            model="m", messages=[{"role": "user", "content": "list files"}], tools=tools,
            tool_choice="required", max_tokens=200)
        choice = response.choices[0]
        assert choice.finish_reason == "tool_calls"
        (call,) = choice.message.tool_calls
        assert call.function.name == "bash"
        assert "command" in json.loads(call.function.arguments)
        s.stop()
        (step,) = _steps(s.run_dir)
        assert step["action_name"] == "bash"
    finally:
        if s.proc.poll() is None:
            s.proc.kill()


def test_tools_under_tool_choice_none_are_rendered_and_text_streams_live(
    tiny_tools_model_path: Path, tmp_path: Path
) -> None:
    # how the endpoint engine asks (as it asks llama-server): the tools in the prompt, our own
    # grammar, and the text back token by token (a real TTFT), never parsed into calls
    s = _serve(tiny_tools_model_path, tmp_path / "runs", "--n-ctx", "4096")
    try:
        tools = [{"type": "function", "function": {"name": "bash", "description": "run",
                  "parameters": {"type": "object", "properties": {}}}}]
        messages = [{"role": "user", "content": "list files"}]
        stream = s.client().chat.completions.create(
            model="m", messages=messages, tools=tools, tool_choice="none", max_tokens=16,
            stream=True, extra_body={"grammar": 'root ::= "ab" "cd" "ef" "gh"'})
        deltas = [c.choices[0].delta.content for c in stream
                  if c.choices and c.choices[0].delta.content]
        plain = s.client().chat.completions.create(model="m", messages=messages, max_tokens=6)
        s.stop()
        steps = _steps(s.run_dir)
        assert "".join(deltas) == "abcdefgh" and len(deltas) > 1
        # the tools were rendered: the prompt is longer than the same messages without them
        assert steps[0]["context_tokens"] > steps[1]["context_tokens"] == plain.usage.prompt_tokens
    finally:
        if s.proc.poll() is None:
            s.proc.kill()


def test_serve_refuses_a_port_in_use(tiny_model_path: Path, tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [str(EDGEAGENT), "serve", "--model", str(tiny_model_path), "--port", str(port),
             "--threads", "1", "--n-ctx", "512", "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"--port {port}" in done.stderr and "Traceback" not in done.stderr
