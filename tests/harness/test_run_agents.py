"""`edgeagent run --agent single-shot` and `--agent-cmd`: the same suites, sandbox, grading,
run directory and report as a live run, with another agent working the tasks.

A scripted engine plays the model (so a fix can be right or wrong on purpose); the runner,
the endpoint, the sandbox, the grading and the store are the real ones.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from scripted import ScriptedEngine

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.errors import ConfigError
from edgeagent.run import execute_run
from edgeagent.rundir import open_run_db
from edgeagent.sandbox.process import isolation_report

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "tasks" / "smoke"


class FixingEngine(ScriptedEngine):
    """Answers a single-shot prompt with the file it was shown, `a - b` made `a + b` (a right
    fix for fix-add; for the other smoke tasks a no-op); any other prompt with `reply`."""

    def __init__(self, reply: str = "done") -> None:
        super().__init__()
        self.reply = reply
        self.prompts: list[list[Message]] = []

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        self.prompts.append(messages)
        shown = re.search(r"```\w*\n(.*?)\n```", messages[-1].text, re.DOTALL)
        if shown is None:
            return self.reply, "stop"
        return "Here it is:\n```python\n" + shown.group(1).replace("a - b", "a + b") + \
            "\n```", "stop"


def _tasks(run_dir: Path) -> dict[str, dict]:
    db = open_run_db(run_dir)
    try:
        return {r["task_id"]: dict(r) for r in db.execute("SELECT * FROM tasks")}
    finally:
        db.close()


def _steps(run_dir: Path) -> list[dict]:
    db = open_run_db(run_dir)
    try:
        return [dict(r) for r in db.execute("SELECT * FROM steps ORDER BY task_id, step")]
    finally:
        db.close()


@pytest.mark.slow
def test_single_shot_grades_and_reports_like_a_live_run(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(SMOKE, suite)
    # a task whose issue names no file: single-shot skips it and says why
    unnamed = suite / "fix-add" / "task.yaml"
    shutil.copytree(suite / "fix-add", suite / "no-file")
    text = (suite / "no-file" / "task.yaml").read_text()
    text = text.replace("id: fix-add", "id: no-file").replace("calc.py", "the module")
    (suite / "no-file" / "task.yaml").write_text(text)
    assert "calc.py" in unnamed.read_text()
    # a task whose file is not UTF-8: it cannot go into the prompt unchanged, so skipped
    shutil.copytree(suite / "fix-add", suite / "latin-1")
    text = (suite / "latin-1" / "task.yaml").read_text().replace("id: fix-add", "id: latin-1")
    (suite / "latin-1" / "task.yaml").write_text(text)
    calc = suite / "latin-1" / "repo" / "calc.py"
    calc.write_bytes(b"# caf\xe9\n" + calc.read_bytes())
    engine = FixingEngine()
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "suite": str(suite), "agent": "single-shot"})
    result = execute_run(config, engine_factory=lambda p, s: engine, progress=False)
    assert result.status == "complete"
    tasks = _tasks(result.run_dir)
    assert tasks["fix-add"]["outcome"] == "resolved"
    assert tasks["fix-add"]["termination"] == "submitted" and tasks["fix-add"]["steps"] == 1
    assert tasks["fix-shout"]["outcome"] == "unresolved"  # graded, its file unchanged
    assert tasks["no-file"]["termination"] == "skipped"
    assert "names none" in tasks["no-file"]["termination_detail"]
    assert tasks["latin-1"]["termination"] == "skipped"
    assert "needs a UTF-8 text file; calc.py" in tasks["latin-1"]["termination_detail"]
    prompt = engine.prompts[0][-1].text
    assert "calc.py" in prompt and "def add" in prompt  # the issue and the whole file
    steps = [s for s in _steps(result.run_dir) if s["task_id"] == "fix-add"]
    assert steps[0]["action_name"] == "write_file" and steps[0]["context_tokens"] == 300
    provenance = json.loads((result.run_dir / "provenance.json").read_text())
    assert provenance["agent"]["name"] == "single-shot"
    capsys.readouterr()
    assert cli.main(["report", str(result.run_dir)]) == 0
    assert "fix-add" in capsys.readouterr().out
    # the docs' side-by-side table reads it: smoke's tasks are all guided, two skipped
    assert _agents_table().main([f"single-shot={result.run_dir}"]) == 0
    table = capsys.readouterr().out
    assert "| single-shot | - | - | - | 0/0 (0.00-0.00) | 1/5 | 2 |" in table
    assert "| single-shot | 5 | 0.6 |" in table  # 3 requests over 5 tasks
    # a run given twice: each task counts once, from the last
    assert _agents_table().main([f"single-shot={result.run_dir}+{result.run_dir}"]) == 0
    assert table == capsys.readouterr().out
    # --common: a whole run beside a partial one, both cut to the tasks both finished
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "one"),
                                "suite": str(suite), "agent": "single-shot",
                                "tasks": ["fix-add"]})
    one = execute_run(config, engine_factory=lambda p, s: FixingEngine(), progress=False)
    assert _agents_table().main(["--common", f"all={result.run_dir}", f"one={one.run_dir}"]) == 0
    out, err = capsys.readouterr()
    assert "| all | - | - | - | 0/0 (0.00-0.00) | 1/1 | 0 |" in out
    assert "| all | 1 | 1.0 |" in out and "| one | 1 | 1.0 |" in out
    assert ("--common: 1 task(s) in every run; 4 left out: fix-shout, fix-sum-to, latin-1, "
            "no-file") in err


def _agents_table():
    import importlib.util

    spec = importlib.util.spec_from_file_location("agents_table",
                                                  ROOT / "tools" / "agents_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# An agent in a dozen lines of Python, passed inline (a file outside the workspace would be
# hidden from it): it asks the endpoint what to run, runs it, asks again with the output.
_AGENT = r"""
import json, os, subprocess, urllib.request
url = os.environ["OPENAI_BASE_URL"] + "/chat/completions"
messages = [{"role": "user", "content": open(os.environ["EDGEAGENT_ISSUE_FILE"]).read()}]
for _ in range(3):
    body = json.dumps({"model": os.environ["EDGEAGENT_MODEL"], "messages": messages}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    answer = json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"]
    if answer == "done":
        break
    out = subprocess.run(answer, shell=True, capture_output=True, text=True).stdout
    messages += [{"role": "assistant", "content": answer}, {"role": "user", "content": out}]
print("agent finished")
"""


class CommandEngine(ScriptedEngine):
    """The model of the inline agent: a fix, then a look, then done."""

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        turns = sum(1 for m in messages if m.role == "assistant")
        script = ["sed -i 's/a - b/a + b/' calc.py", "grep -n return calc.py", "done"]
        return script[min(turns, 2)], "stop"


def _needs_netns() -> None:
    report = isolation_report()
    if report["network"].startswith("none") or report["filesystem"].startswith("none"):
        pytest.skip(f"no network namespace or confinement here: {report}")


@pytest.mark.slow
def test_agent_cmd_runs_confined_and_is_metered(tiny_model_path: Path, tmp_path: Path) -> None:
    _needs_netns()
    template = f"{shlex.quote(sys.executable)} -c {shlex.quote(_AGENT)}"
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "suite": str(SMOKE), "tasks": ["fix-add"],
                                "agent_cmd": template, "wall_s": 120.0})
    result = execute_run(config, engine_factory=lambda p, s: CommandEngine(), progress=False)
    (task,) = result.tasks
    assert task.outcome == "resolved", task.grading_output
    assert task.termination == "submitted" and task.steps == 3
    steps = _steps(result.run_dir)
    assert [s["step"] for s in steps] == [0, 1, 2]
    assert all(s["context_tokens"] == 300 and s["reused_tokens"] == 290 for s in steps)
    assert steps[0]["tool_ms"] > 0  # the agent's own time between requests
    log = (result.run_dir / "agents" / "fix-add-0.log").read_text()
    assert "agent finished" in log
    assert not (Path(result.run_dir) / ".edgeagent-issue.md").exists()


_HOSTILE = r"""
import os, socket, sys
hidden, out, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
for path in (hidden, out):
    try:
        print("LEAK", path, os.listdir(path))
    except OSError as exc:
        print("DENIED", path, type(exc).__name__)
try:
    socket.create_connection(("127.0.0.1", port), timeout=2)
    print("LEAK port", port)
except OSError as exc:
    print("DENIED port", type(exc).__name__)
for pid in os.listdir("/proc"):
    if pid.isdigit():
        status = open("/proc/%s/status" % pid).read()
        eff = next(l for l in status.splitlines() if l.startswith("CapEff"))
        print("LEAK caps", pid) if int(eff.split()[1], 16) else None
print("hostile done")
"""


@pytest.mark.slow
def test_a_hostile_agent_cmd_reaches_neither_answers_nor_run_dir(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    _needs_netns()
    import socket

    out = tmp_path / "runs"
    with socket.socket() as host_port:  # a host service the agent must not reach
        host_port.bind(("127.0.0.1", 0))
        host_port.listen()
        hidden = SMOKE / "fix-add" / "hidden_tests"
        args = " ".join(shlex.quote(a) for a in (str(hidden), str(out),
                                                  str(host_port.getsockname()[1])))
        template = f"{shlex.quote(sys.executable)} -c {shlex.quote(_HOSTILE)} {args}"
        config = load_config(None, {"model": str(tiny_model_path), "out": str(out),
                                    "suite": str(SMOKE), "tasks": ["fix-add"],
                                    "agent_cmd": template, "wall_s": 60.0})
        result = execute_run(config, engine_factory=lambda p, s: CommandEngine(),
                             progress=False)
    log = (result.run_dir / "agents" / "fix-add-0.log").read_text()
    assert "hostile done" in log, log
    assert "LEAK" not in log, log
    assert log.count("DENIED") == 3
    assert result.tasks[0].outcome == "unresolved"


def test_an_unknown_agent_is_one_line_and_exit_2(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--agent", "mini-swe", "--headless", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'mini-swe'" in err and "did you mean mini-swe-agent" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(ConfigError, match="unknown placeholder {prompt}"):
        from edgeagent.harness import check_template

        check_template("my-agent {prompt}")


@pytest.mark.slow
def test_a_stop_ends_a_running_agent_at_once(tiny_model_path: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C (the first one) stops an external agent now, not after its wall time: the task
    is recorded `interrupted`, ungraded, so `--resume` runs it again."""
    _needs_netns()
    import time

    start = time.monotonic()
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "suite": str(SMOKE), "tasks": ["fix-add", "fix-shout"],
                                "agent_cmd": "sleep 300", "wall_s": 300.0})
    asked = []

    def stop() -> bool:  # asked before each task, then every 0.1 s while the agent runs
        asked.append(1)
        return len(asked) > 10

    result = execute_run(config, engine_factory=lambda p, s: CommandEngine(), progress=False,
                         stop_requested=stop)
    assert time.monotonic() - start < 60
    assert result.status == "interrupted"
    (task,) = result.tasks
    assert task.termination == "interrupted" and task.task_id == "fix-add"
    assert task.grading_output.startswith("not graded")
    # the docs' table leaves a task a stop cut short out, and says so
    assert _agents_table().main([f"cmd={result.run_dir}"]) == 0
    out, err = capsys.readouterr()
    assert "1 interrupted task(s) left out: fix-add" in err
    assert "| cmd | 0 |" in out  # no task left to count
