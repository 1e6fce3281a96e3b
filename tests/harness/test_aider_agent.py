"""`edgeagent run --agent aider`: aider from its own environment, run whole in the sandbox with
the run's endpoint its only network, given the file our draft would rewrite and the task's
visible tests.

A stand-in `aider` (a Python script in an environment laid out as the install makes it) plays
aider's part, so the command line, the environment shown to the sandbox, the endpoint, the
file and the test command are checked without the 100-odd packages; the runner, endpoint,
sandbox, grading and store are the real ones. The real aider is run where it is installed.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from test_run_agents import FixingEngine, _needs_netns, _steps

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.events import TaskRecord
from edgeagent.harness import AIDER_VERSION, aider_available
from edgeagent.run import RunResult, execute_run

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "tasks" / "smoke"

# aider's part: the flags it was given, one request with the issue and the file in a fence
# (as aider's whole format shows a file), the answer's file written, the test command run, and
# what the sandbox lets it do to its own environment and to the hidden tests
_STAND_IN = r"""#!{python}
import json, os, subprocess, sys, urllib.request
args = sys.argv[1:]
def flag(name):
    return args[args.index(name) + 1] if name in args else None
path = flag("--file")
text = open(path).read()
issue = open(flag("--message-file")).read()
body = {{"model": flag("--model").split("/", 1)[1], "temperature": 0, "messages": [
    {{"role": "user", "content": issue + "\n\n" + path + "\n```python\n" + text + "\n```"}}]}}
req = urllib.request.Request(flag("--openai-api-base") + "/chat/completions",
                             json.dumps(body).encode(), {{"Content-Type": "application/json"}})
answer = json.load(urllib.request.urlopen(req))["choices"][0]["message"]["content"]
fixed = answer.split("```python\n", 1)[1].rsplit("\n```", 1)[0]
open(path, "w").write(fixed + "\n")
tests = subprocess.run(flag("--test-cmd"), shell=True, capture_output=True, text=True)
try:
    open(os.path.join(os.path.dirname(sys.argv[0]), "written"), "w")
    print("LEAK env writable")
except OSError:
    print("env read-only")
print("hidden:", os.path.exists("hidden_tests"), "HOME:", os.environ["HOME"])
print("ARGS", json.dumps(args))
print("tests exit", tests.returncode)
"""


class WholeFormatEngine(FixingEngine):
    """Answers in aider's whole-file format (the file's name, then the file in a fence): the
    calc.py its chat holds, `a - b` made `a + b`."""

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        self.prompts.append(messages)
        for message in messages:
            shown = re.search(r"```\w*\n(.*?def add.*?)\n```", message.text, re.DOTALL)
            if shown is not None:
                fixed = shown.group(1).replace("a - b", "a + b")
                return f"calc.py\n```python\n{fixed}\n```\n", "stop"
        return "I need calc.py.", "stop"


def _stand_in_env(agents_dir: Path) -> Path:
    env = agents_dir / f"aider-chat-{AIDER_VERSION}"
    (env / "bin").mkdir(parents=True)
    program = env / "bin" / "aider"
    program.write_text(_STAND_IN.format(python=sys.executable))
    program.chmod(0o755)
    (env / ".edgeagent-installed").write_text(f"aider-chat=={AIDER_VERSION}\n")
    return env


def _fix_add_with_aider(model: Path, tmp_path: Path, engine: FixingEngine, wall_s: float,
                        suite: Path = SMOKE) -> tuple[RunResult, TaskRecord]:
    """fix-add (the smoke suite's, or `suite`'s) run by `--agent aider`, the engine answering
    its requests."""
    config = load_config(None, {"model": str(model), "out": str(tmp_path / "runs"),
                                "suite": str(suite), "tasks": ["fix-add"], "agent": "aider",
                                "wall_s": wall_s})
    result = execute_run(config, engine_factory=lambda p, s: engine, progress=False)
    (task,) = result.tasks
    return result, task


def _nested_fix_add(tmp_path: Path) -> Path:
    """The smoke suite's fix-add with its source one folder down (pkg/calc.py), as `core`'s
    are: aider without git takes pkg/ as its root, while the tests run from the top."""
    suite = tmp_path / "suite"
    task = suite / "fix-add"
    shutil.copytree(SMOKE / "fix-add", task)
    (task / "repo" / "pkg").mkdir()
    (task / "repo" / "pkg" / "__init__.py").write_text("")
    (task / "repo" / "calc.py").rename(task / "repo" / "pkg" / "calc.py")
    for test in [*(task / "repo" / "tests").glob("test_*.py"),
                 *(task / "hidden_tests").rglob("test_*.py")]:
        test.write_text(test.read_text().replace("from calc import", "from pkg.calc import"))
    for spec in (task / "task.yaml", task / "oracle.yaml"):
        spec.write_text(spec.read_text().replace("calc.py", "pkg/calc.py"))
    return suite


def test_aider_not_installed_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGEAGENT_AGENTS_DIR", str(tmp_path / "agents"))
    assert cli.main(["run", "--agent", "aider", "--headless", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"--agent aider: aider {AIDER_VERSION} is not installed" in err
    assert "edgeagent agents install aider" in err
    assert cli.main(["agents", "list"]) == 0
    assert "edgeagent agents install aider" in capsys.readouterr().out


def test_agents_install_keeps_an_installed_aider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGEAGENT_AGENTS_DIR", str(tmp_path / "agents"))
    env = _stand_in_env(tmp_path / "agents")
    assert cli.main(["agents", "install", "aider"]) == 0
    assert f"aider {AIDER_VERSION} is already installed at {env}" in capsys.readouterr().out
    assert cli.main(["agents", "list"]) == 0
    assert f"ready ({env / 'bin' / 'aider'})" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:  # argparse: not a choice
        cli.main(["agents", "install", "aider-chat"])
    assert exit_.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.slow
def test_aider_runs_confined_with_the_located_file_and_the_visible_tests(
    tiny_model_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_netns()
    monkeypatch.setenv("EDGEAGENT_AGENTS_DIR", str(tmp_path / "agents"))
    env = _stand_in_env(tmp_path / "agents")
    assert aider_available() is None
    engine = FixingEngine()
    result, task = _fix_add_with_aider(tiny_model_path, tmp_path, engine, wall_s=120.0)
    assert task.outcome == "resolved", task.grading_output
    assert task.termination == "submitted" and task.steps == 1
    log = (result.run_dir / "agents" / "fix-add-0.log").read_text()
    assert "env read-only" in log and "LEAK" not in log, log
    assert "hidden: False HOME: /tmp/aider" in log
    assert not (env / "bin" / "written").exists()
    args = json.loads(log.split("ARGS ", 1)[1].splitlines()[0])
    assert args[args.index("--file") + 1] == "calc.py"  # the file the issue names
    assert args[args.index("--test-cmd") + 1] == (  # from the workspace, wherever aider's root
        'cd "$EDGEAGENT_WORKSPACE" && python -m unittest discover -s tests -t . -q')
    assert "--auto-test" in args and "--no-git" in args
    assert args[args.index("--edit-format") + 1] == "whole"
    assert "tests exit 0" in log
    (step,) = _steps(result.run_dir)  # the one request, metered by the run's endpoint
    assert step["decoded_tokens"] > 0
    assert "def add" in engine.prompts[0][-1].text  # the file aider was given, as it sent it
    provenance = json.loads((result.run_dir / "provenance.json").read_text())
    assert provenance["agent"]["name"] == "aider"
    assert provenance["agent"]["version"] == AIDER_VERSION
    assert provenance["agent"]["edit_format"] == "whole"


@pytest.mark.slow
@pytest.mark.skipif(aider_available() is not None, reason="aider is not installed here "
                    "(edgeagent agents install aider)")
def test_the_real_aider_edits_the_file_through_our_endpoint(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    """aider itself, confined: it starts with the flags we give it (a flag it does not know
    would end it with a usage error), sends its own prompt to the endpoint and writes the
    whole file it is answered with."""
    _needs_netns()
    engine = WholeFormatEngine()
    result, task = _fix_add_with_aider(tiny_model_path, tmp_path, engine, wall_s=300.0,
                                       suite=_nested_fix_add(tmp_path))
    log = (result.run_dir / "agents" / "fix-add-0.log").read_text()
    assert task.termination == "submitted", log
    assert task.outcome == "resolved", (task.grading_output, log)
    assert "Added calc.py to the chat" in log  # pkg/ is aider's root
    assert "Ran 2 tests" in log and "not importable" not in log  # the visible tests ran
    # aider's own prompts: its system prompt asks for file listings, its chat holds the file
    assert "file listing" in engine.prompts[0][0].text.lower()
    assert any("def add" in m.text for m in engine.prompts[0])
