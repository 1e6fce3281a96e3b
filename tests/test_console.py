"""The headless console's step line: a failed tool call is said in words, not a bare "!"."""

from __future__ import annotations

import dataclasses

from paths import ROOT
from run_fixture import step

from edgeagent.console import step_line


def test_a_failed_tool_call_is_named_and_documented() -> None:
    s = step("a", 0, other=0, start=0, ttft=1, prefill_ms=900, decode=1, tool=1, ctx=100,
             reused=0, decoded=5, energy=(1, 1, 1, 1))
    failed = dataclasses.replace(s, tool_error=True, tool_exit_code=1)
    assert step_line(failed).endswith("exit 1 tool error")
    assert not step_line(failed).endswith("!")
    assert "tool error" not in step_line(s)
    assert "ends in `tool error` when the tool call ran" in (ROOT / "docs" / "run.md").read_text()
