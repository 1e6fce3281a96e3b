"""An answer cut by the token budget before its tool call closed is a format error that says
so (the parser's own complaint, such as an unterminated string, hides the cause), through the
real runner and store with a scripted engine."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from scripted import ScriptedEngine

from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.run import execute_run

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

CUT = '{"name": "edit", "arguments": {"path": "calc.py", "old": "a - b", "new": "a + b + b + b'
SUBMIT = json.dumps({"name": "submit", "arguments": {}})


class CutThenSubmit(ScriptedEngine):
    """First answer: a call cut off by the budget (finish_reason length); then submit."""

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        return (CUT, "length") if call == 0 else (SUBMIT, "stop")


def test_a_call_cut_by_the_budget_is_a_format_error_that_names_the_budget(
        tiny_model_path: Path, tmp_path: Path) -> None:
    cfg = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                             "tasks": ["fix-add"], "max_steps": 4, "max_new_tokens": 96,
                             "draft_first": False})
    result = execute_run(cfg, engine_factory=lambda p, c: CutThenSubmit(), progress=False)
    db = sqlite3.connect(result.run_dir / "run.db")
    errors = [r[0] for r in db.execute("SELECT format_error FROM steps ORDER BY step")]
    db.close()
    assert errors[0].startswith("the answer reached the 96-token budget before its tool call "
                                "was complete (")
    assert errors[0].endswith("); write a shorter call")
    assert errors[1:] == [None]  # the submit that follows is a call
