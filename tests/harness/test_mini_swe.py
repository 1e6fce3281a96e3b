"""The real mini-swe-agent against a scripted OpenAI-compatible server, its commands in our
sandbox: submitting, confinement, its step limit, and a server that is down or never answers.

Each agent run is a child process that imports litellm (seconds). The pure parts (the submit
rule, observations, the spec's JSON) are tested without mini-swe-agent."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from edgeagent.harness.mini_swe import (
    INSTALL_HINT,
    MiniSweSpec,
    mini_swe_available,
    run_mini_swe_agent,
)
from edgeagent.harness.mini_swe_host import (
    SUBMIT_SENTINEL,
    SandboxEnvironment,
    export_prefix,
    load_spec,
    observation,
    private_config_dir,
    submission_of,
)
from edgeagent.sandbox.process import CommandResult, ProcessLimits, isolation_report

MISSING = mini_swe_available()
needs_msa = pytest.mark.skipif(MISSING is not None, reason=f"mini-swe-agent: {MISSING}")
SERVED = "scripted-model"
RUN_TIMEOUT_S = 180.0  # a child importing litellm on 2 busy cores, plus the run
SUBMIT = f"echo {SUBMIT_SENTINEL}"


def text_reply(command: str) -> str:
    """An answer in default.yaml's format: a THOUGHT and one mswea_bash_command block."""
    return f"THOUGHT: the next step.\n\n```mswea_bash_command\n{command}\n```\n"


class ScriptedServer:
    """POST /v1/chat/completions on 127.0.0.1, answered in order from `replies` (text, or
    ("tool", command) for a bash tool call). Serves at most len(replies) requests, then
    stops by itself; hang=True never answers (until stop())."""

    def __init__(self, replies: list[Any], *, hang: bool = False, life_s: float = 240.0):
        self.replies, self.hang = list(replies), hang
        self.requests: list[dict[str, Any]] = []
        self.auth: list[str] = []
        self.release = threading.Event()
        self.httpd = HTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.timeout = 0.2
        self.deadline = time.monotonic() + life_s
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def _serve(self) -> None:
        limit = max(len(self.replies), 1)
        while (len(self.requests) < limit and not self.release.is_set()
               and time.monotonic() < self.deadline):
            self.httpd.handle_request()
        self.httpd.server_close()

    def stop(self) -> None:
        self.release.set()
        self.thread.join(timeout=10)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.auth.append(self.headers.get("Authorization", ""))
                if server.hang:
                    server.release.wait(timeout=server.deadline - time.monotonic())
                    return
                reply = server.replies[len(server.requests) - 1]
                data = json.dumps(completion(reply, body.get("model", ""))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def completion(reply: Any, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply}
    finish = "stop"
    if isinstance(reply, tuple):  # ("tool", command): mini.yaml's tool-call format
        message = {"role": "assistant", "content": "THOUGHT: the next step.", "tool_calls": [{
            "id": f"call_{uuid.uuid4().hex[:8]}", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": reply[1]})}}]}
        finish = "tool_calls"
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


@pytest.fixture
def serve():
    servers: list[ScriptedServer] = []

    def start(replies: list[Any], **kwargs: Any) -> ScriptedServer:
        servers.append(ScriptedServer(replies, **kwargs))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def make_spec(tmp_path: Path, base_url: str, **changes: Any) -> MiniSweSpec:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    run = tmp_path / "run"
    fields: dict[str, Any] = dict(
        base_url=base_url, model_name=SERVED, issue="Create made.txt holding hello, then submit.",
        workdir=ws, step_limit=10, wall_s=120.0, command_timeout_s=20.0,
        process_limits=ProcessLimits(timeout_s=20.0), trajectory_path=run / "traj.json",
        result_path=run / "result.json")
    return MiniSweSpec(**{**fields, **changes})


def check_requests(server: ScriptedServer) -> None:
    assert server.requests, "the server got no request"
    for body in server.requests:
        assert body["temperature"] == 0 and body["seed"] == 42, body.keys()
        assert body["model"] == SERVED
        assert not body.get("stream")
    assert set(server.auth) == {"Bearer edgeagent"}


# ---- the agent end to end ---------------------------------------------------------------------


@pytest.mark.slow
@needs_msa
def test_creates_a_file_then_submits(tmp_path: Path, serve,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"  # mini-swe-agent's import would make ~/.config/mini-swe-agent
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    server = serve([text_reply("echo hello > made.txt && ls"),
                    text_reply(f"{SUBMIT} && cat made.txt")])
    spec = make_spec(tmp_path, server.base_url)
    result = run_mini_swe_agent(spec, timeout_s=RUN_TIMEOUT_S)
    log = result.log_path.read_text()
    assert result.exit_status == "Submitted", log
    assert result.submission == "hello\n" and result.error is None
    assert (result.n_calls, result.commands) == (2, 2)
    assert (result.returncode, result.timed_out) == (0, False)
    assert (tmp_path / "ws" / "made.txt").read_text() == "hello\n"
    check_requests(server)
    # the first command's observation went back to the model, in default.yaml's template
    assert "<returncode>0</returncode>" in json.dumps(server.requests[1]["messages"])
    traj = json.loads(Path(spec.trajectory_path).read_text())
    assert traj["info"]["exit_status"] == "Submitted"
    assert traj["info"]["config"]["environment_type"].endswith("SandboxEnvironment")
    assert "Traceback" not in log
    # nothing of mini-swe-agent's; edgeagent's own sandbox cache may be there
    assert {p.relative_to(home).as_posix() for p in home.rglob("*")} <= {
        ".cache", ".cache/edgeagent", ".cache/edgeagent/special-files.json"}
    assert not private_config_dir(Path(spec.trajectory_path)).exists()


@pytest.mark.slow
@needs_msa
def test_tool_call_config_mini(tmp_path: Path, serve) -> None:
    server = serve([("tool", "echo tools > t.txt"), ("tool", SUBMIT)])
    result = run_mini_swe_agent(make_spec(tmp_path, server.base_url, config="mini"),
                                timeout_s=RUN_TIMEOUT_S)
    assert result.exit_status == "Submitted", result.log_path.read_text()
    assert (result.n_calls, result.commands) == (2, 2)
    assert (tmp_path / "ws" / "t.txt").read_text() == "tools\n"
    check_requests(server)
    assert all(body.get("tools") for body in server.requests)


def bound_dirs(tag: str) -> tuple[Path, Path] | None:
    """(hidden, shown) in a directory the sandbox binds (/usr/local/share), where only `hide`
    keeps a path from a command; None where it is not writable. (A path in /tmp is out of
    sight anyway, and one inside the workspace is not hidden: the workspace is bound last.)"""
    base = Path("/usr/local/share")
    if not os.access(base, os.W_OK):
        return None
    return base / f"edgeagent-msa-hide-{tag}", base / f"edgeagent-msa-show-{tag}"


@pytest.mark.slow
@needs_msa
def test_commands_are_confined_to_the_workspace(tmp_path: Path, serve) -> None:
    fs = isolation_report()["filesystem"]
    if fs.startswith("none"):
        pytest.skip(f"no filesystem confinement on this machine: {fs}")
    token = uuid.uuid4().hex
    marker = Path(f"/tmp/edgeagent-msa-outside-{token}-marker")
    outside, hidden_tmp = tmp_path / "outside", tmp_path / "hidden"
    bound = bound_dirs(token[:8])
    hidden = [hidden_tmp, *(bound[:1] if bound else ())]
    reads = "; ".join(f"cat {d}/secret.txt" for d in hidden)
    shown = f"; ls {bound[1]}" if bound else ""
    command = f"echo x > {marker}; echo x > {outside}/escaped.txt; {reads}{shown}; echo done"
    server = serve([text_reply(command), text_reply(SUBMIT)])
    limits = ProcessLimits(timeout_s=20.0, hide=tuple(str(d) for d in hidden))
    try:
        for d in dict.fromkeys((outside, *hidden, *(bound or ()))):
            d.mkdir()
            (d / "secret.txt").write_text(f"SECRET-{token}\n")
        result = run_mini_swe_agent(make_spec(tmp_path, server.base_url, process_limits=limits),
                                    timeout_s=RUN_TIMEOUT_S)
    finally:
        for d in bound or ():
            shutil.rmtree(d, ignore_errors=True)
    assert result.exit_status == "Submitted", result.log_path.read_text()
    assert not marker.exists() and not (outside / "escaped.txt").exists()
    seen = json.dumps(server.requests[1]["messages"])
    assert f"SECRET-{token}" not in seen and "done" in seen  # the command did run
    if bound:  # the mask, not the bind, is what hides it: the sibling is listed
        assert "secret.txt" in seen


@pytest.mark.slow
@needs_msa
def test_step_limit_one_is_limits_exceeded(tmp_path: Path, serve) -> None:
    server = serve([text_reply("echo one > one.txt"), text_reply(SUBMIT)])
    result = run_mini_swe_agent(make_spec(tmp_path, server.base_url, step_limit=1),
                                timeout_s=RUN_TIMEOUT_S)
    assert result.exit_status == "LimitsExceeded", result.log_path.read_text()
    assert (result.n_calls, result.commands, result.error) == (1, 1, None)
    assert len(server.requests) == 1 and (tmp_path / "ws" / "one.txt").exists()
    check_requests(server)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@needs_msa
def test_server_down_is_an_error_line_not_a_hang(tmp_path: Path) -> None:
    spec = make_spec(tmp_path, f"http://127.0.0.1:{_free_port()}/v1")
    start = time.monotonic()
    result = run_mini_swe_agent(spec, timeout_s=RUN_TIMEOUT_S)
    assert not result.timed_out and result.returncode == 1, result.log_path.read_text()
    assert result.error and "\n" not in result.error
    assert result.exit_status == result.error.split(":")[0]  # the exception's class
    assert (result.n_calls, result.commands) == (1, 0)
    assert time.monotonic() - start < RUN_TIMEOUT_S / 2


@pytest.mark.slow
@needs_msa
def test_a_server_that_never_answers_is_killed_at_timeout(tmp_path: Path, serve) -> None:
    server = serve([], hang=True)
    spec = make_spec(tmp_path, server.base_url)
    start = time.monotonic()
    result = run_mini_swe_agent(spec, timeout_s=20.0)
    took = time.monotonic() - start
    assert result.timed_out and result.exit_status == "TimeExceeded"
    assert result.error and "killed after 20 s" in result.error
    assert result.returncode is not None and result.returncode < 0  # by SIGKILL
    assert 20.0 <= took < 35.0
    assert not Path(spec.result_path).exists()
    assert not private_config_dir(Path(spec.trajectory_path)).exists()


@pytest.mark.slow
@needs_msa
def test_cancel_kills_the_agent_mid_call(tmp_path: Path, serve) -> None:
    server = serve([], hang=True)
    cancel = threading.Event()

    def cancel_once_asked() -> None:  # as the run's step limit would, from another thread
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        cancel.set()

    threading.Thread(target=cancel_once_asked, daemon=True).start()
    start = time.monotonic()
    result = run_mini_swe_agent(make_spec(tmp_path, server.base_url), timeout_s=RUN_TIMEOUT_S,
                                cancel=cancel)
    assert result.cancelled and not result.timed_out and result.exit_status == "Cancelled"
    assert len(server.requests) == 1 and time.monotonic() - start < RUN_TIMEOUT_S / 2
    assert result.returncode is not None and result.returncode < 0


# ---- the parts that need no mini-swe-agent ----------------------------------------------------


def test_availability_message_names_the_extra() -> None:
    assert MISSING is None or INSTALL_HINT in MISSING


@pytest.mark.parametrize("output,returncode,expected", [
    (f"{SUBMIT_SENTINEL}\npatch\nmore\n", 0, "patch\nmore\n"),
    (f"\n  {SUBMIT_SENTINEL}  \nx", 0, "x"),  # leading blank space is stripped first
    (f"{SUBMIT_SENTINEL}", 0, ""),
    (f"{SUBMIT_SENTINEL}\npatch\n", 1, None),  # only with return code 0
    (f"before\n{SUBMIT_SENTINEL}\n", 0, None),  # only as the first line
    (f"{SUBMIT_SENTINEL} and more\n", 0, None),
    ("", 0, None),
])
def test_submit_rule_is_local_environments(output: str, returncode: int,
                                           expected: str | None) -> None:
    assert submission_of({"output": output, "returncode": returncode}) == expected


def test_a_timeout_reads_as_local_environments() -> None:
    result = CommandResult(exit_code=None, output="partial\n", timed_out=True, truncated=False,
                           output_bytes=8, wall_ms=5000.0)
    obs = observation(result, "sleep 99", 5.0)
    assert obs["returncode"] == -1 and obs["output"] == "partial\n"
    assert obs["exception_info"] == ("An error occurred while executing the command: "
                                     "Command 'sleep 99' timed out after 5 seconds")
    assert obs["extra"]["exception_type"] == "TimeoutExpired"
    done = CommandResult(exit_code=3, output="x", timed_out=False, truncated=False,
                         output_bytes=1, wall_ms=1.0)
    assert observation(done, "false", 5.0) == {"output": "x", "returncode": 3,
                                                "exception_info": ""}


def test_export_prefix_quotes_values_and_refuses_bad_names() -> None:
    assert export_prefix({}) == ""
    assert export_prefix({"PAGER": "cat", "LESS": "-R x"}) == "export PAGER=cat LESS='-R x'; "
    with pytest.raises(ValueError):
        export_prefix({"A;rm -rf /": "x"})


@pytest.mark.slow
def test_environment_runs_each_command_in_a_fresh_sandboxed_shell(tmp_path: Path) -> None:
    env = SandboxEnvironment(tmp_path, ProcessLimits(timeout_s=10.0), {"PAGER": "cat"})
    first = env.execute({"command": "mkdir sub && cd sub && export MINE=1 && echo $PAGER"})
    assert (first["returncode"], first["output"]) == (0, "cat\n")
    second = env.execute({"command": "pwd; echo ${MINE:-unset}"})
    assert second["output"].splitlines()[-1] == "unset"
    assert not second["output"].splitlines()[0].endswith("/sub")
    slow = env.execute({"command": "echo started; sleep 30"}, timeout=1)
    assert slow["returncode"] == -1 and "timed out after 1 seconds" in slow["exception_info"]
    assert env.n_commands == 3
    assert {"system", "release", "version", "machine", "cwd"} <= set(env.get_template_vars())


def test_spec_json_round_trips_to_the_host(tmp_path: Path) -> None:
    limits = ProcessLimits(timeout_s=99.0, hide=("/a", "/b"), memory_bytes=1 << 30)
    spec = make_spec(tmp_path, "http://127.0.0.1:1/v1", process_limits=limits)
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec.to_json()))
    host = load_spec(path)
    assert host.process_limits.hide == ("/a", "/b")
    assert host.process_limits.timeout_s == 20.0  # command_timeout_s wins
    assert host.process_limits.memory_bytes == 1 << 30
    assert (host.config, host.temperature, host.seed) == ("default", 0.0, 42)
    assert host.workdir == tmp_path / "ws"
