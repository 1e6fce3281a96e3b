"""`--agent aider`: the real aider (pinned, in its own environment: aider_env.py), run whole
inside the sandbox as `--agent-cmd` programs are, the run's endpoint its only network.

How it is run, and why:
- its own shipped prompts and its whole-file edit format (`--edit-format whole`, which is also
  what aider chooses for a model it has no settings for, as ours are); temperature 0, aider's
  own setting for such a model (greedy, as every agent here);
- the issue (title and text) as its one message (`--message-file`), after which it exits;
- in its chat, the one file our draft would rewrite (agent.located_file: the source file the
  issue names, else the one that defines what it names), as a user adds the file to fix;
  with none, aider starts with an empty chat and may add what it asks for (`--yes-always`);
- the task's visible test command as its `--test-cmd` with `--auto-test`, run from the
  workspace (without git, aider's root is its files' common folder): aider runs the tests
  after its edits and, when they fail, asks the model to fix them (its "fix the test errors"
  turns, up to its own reflection limit); its linting stays on, as shipped;
- no git (`--no-git`: the workspace's history is not aider's to commit to), no analytics, no
  update check, no release notes; its history files and home in the command's private /tmp,
  so nothing of aider's is left in the workspace that is graded.
Every request aider sends is a metered step, as with any external agent.
"""

from __future__ import annotations

import shlex
from typing import Any

from ..agent import LoopResult, located_file
from .aider_env import AIDER_VERSION, aider_env, aider_program
from .command import run_confined_agent

EDIT_FORMAT = "whole"

# fixed flags: no git, no network but ours, nothing written outside the command's /tmp
_QUIET_FLAGS = (
    "--no-git", "--yes-always", "--no-auto-commits", "--no-dirty-commits",
    "--analytics-disable", "--no-check-update", "--no-show-release-notes",
    "--no-show-model-warnings", "--no-pretty", "--no-fancy-input", "--no-detect-urls",
    "--no-suggest-shell-commands", "--no-restore-chat-history",
    "--chat-history-file", "/tmp/aider/chat.md", "--input-history-file", "/tmp/aider/input",
)


def aider_command(values: dict[str, str], file: str | None, test_command: str | None) -> str:
    """The shell command for one task: aider's home in the private /tmp, litellm kept off the
    network (its model list from its own copy), then aider with the endpoint and the task."""
    q = shlex.quote
    argv = [str(aider_program()), "--model", f"openai/{values['model']}",
            "--openai-api-base", values["base_url"], "--openai-api-key", values["api_key"],
            "--edit-format", EDIT_FORMAT, *_QUIET_FLAGS,
            "--message-file", values["issue_file"]]
    if test_command:
        # aider without git takes its files' common folder as its root and runs the tests
        # there (thermo/ for thermo/convert.py): the task's command runs from the workspace
        argv += ["--auto-test", "--test-cmd", f'cd "$EDGEAGENT_WORKSPACE" && {test_command}']
    if file is not None:
        argv += ["--file", file]
    return ("mkdir -p /tmp/aider && export HOME=/tmp/aider LITELLM_LOCAL_MODEL_COST_MAP=True "
            'EDGEAGENT_WORKSPACE="$PWD"; exec ' + " ".join(q(a) for a in argv))


def run_aider_task(*, test_command: str | None, **task: Any) -> LoopResult:
    """One task with aider: its file located as our draft's, its command made and run
    confined (command.run_confined_agent), its environment shown read-only."""
    located = located_file(task["ws"].root, task["issue"])
    file = located[0] if located is not None else None
    return run_confined_agent(lambda values: aider_command(values, file, test_command),
                              show=(str(aider_env()),), **task)


def aider_provenance() -> dict[str, Any]:
    return {"version": AIDER_VERSION, "environment": str(aider_env()),
            "edit_format": EDIT_FORMAT, "temperature": 0,
            "file": "the one our draft would rewrite (agent.located_file), if any",
            "auto_test": "the task's visible test command", "git": False}
