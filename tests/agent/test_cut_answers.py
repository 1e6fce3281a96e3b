"""An answer cut by the token budget before its tool call closed is a format error that says
so (the parser's own complaint, such as an unterminated string, hides the cause), through the
real runner and store with a scripted engine."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

from edgeagent.config import load_config
from edgeagent.engine.base import Generation, Message
from edgeagent.run import execute_run

CUT = '{"name": "edit", "arguments": {"path": "calc.py", "old": "a - b", "new": "a + b + b + b'
SUBMIT = json.dumps({"name": "submit", "arguments": {}})


class CutThenSubmit:
    """First answer: a call cut off by the budget (finish_reason length); then submit."""

    n_ctx = 8192

    def __init__(self) -> None:
        self.calls = 0

    def provenance(self) -> dict:
        return {"engine": "scripted"}

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text[: max_tokens * 4]

    def generate(self, messages: list[Message], *, max_tokens: int, grammar=None,
                 max_context_tokens=None) -> Generation:
        self.calls += 1
        text, finish = (CUT, "length") if self.calls == 1 else (SUBMIT, "stop")
        t = time.monotonic_ns()
        return Generation(text, (), finish, 300, 290, 10, 5, t, t, t, t, (t,))


def test_a_call_cut_by_the_budget_is_a_format_error_that_names_the_budget(
        tiny_model_path: Path, tmp_path: Path) -> None:
    cfg = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                             "tasks": ["fix-add"], "max_steps": 4, "max_new_tokens": 96})
    result = execute_run(cfg, engine_factory=lambda p, c: CutThenSubmit(), progress=False)
    db = sqlite3.connect(result.run_dir / "run.db")
    errors = [r[0] for r in db.execute("SELECT format_error FROM steps ORDER BY step")]
    db.close()
    assert errors[0].startswith("the answer reached the 96-token budget before its tool call "
                                "was complete (")
    assert errors[0].endswith("); write a shorter call")
    assert errors[1:] == [None]  # the submit that follows is a call
