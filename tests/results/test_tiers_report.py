"""The guided tier is kept apart from the graded tiers in every report: a real run (scripted
engine) over a suite with one easy and one guided task, read back by report (text, md,
json, html), check and compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from paths import ROOT
from scripted import ScriptedEngine

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.run import execute_run

EASY_ISSUE = "add(2, 3) in calc.py returns -1; it should return 5."
GUIDED_ISSUE = "Replace `return a - b` with `return a + b` in calc.py."


def make_suite(root: Path) -> Path:
    for task_id, tier, issue in (("easy-add", "easy", EASY_ISSUE),
                                 ("guided-add", "guided", GUIDED_ISSUE)):
        task = root / task_id
        shutil.copytree(ROOT / "tasks" / "smoke" / "fix-add", task)
        text = (task / "task.yaml").read_text().replace("id: fix-add", f"id: {task_id}")
        head, rest = text.split("issue: |\n", 1)
        rest = rest[rest.index("test_command:"):].replace("tier: guided", f"tier: {tier}")
        (task / "task.yaml").write_text(f"{head}issue: |\n  {issue}\n{rest}")
    return root


class IssueFollower(ScriptedEngine):
    """Makes the edit a guided issue states, then submits; otherwise answers once without a
    tool call (a format error), then submits."""

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        guided = "Replace `" in messages[1].content
        first = not any(m.role == "assistant" for m in messages)
        if guided and first:
            return json.dumps({"name": "edit", "arguments": {
                "path": "calc.py", "old": "return a - b", "new": "return a + b"}}), "stop"
        if first:
            return "I think the bug is in calc.py.", "stop"
        return json.dumps({"name": "submit", "arguments": {}}), "stop"


@pytest.fixture(scope="module")
def run_dir(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("tiers")
    suite = make_suite(tmp / "suite")
    config = load_config(None, {"model": str(tiny_model_path), "suite": str(suite),
                                "out": str(tmp / "runs"), "draft_first": False})
    result = execute_run(config, engine_factory=lambda p, c: IssueFollower(), progress=False)
    assert [t.outcome for t in result.tasks] == ["unresolved", "resolved"]
    return result.run_dir


def report(run_dir: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert cli.main(["report", str(run_dir), *args]) == 0
    return capsys.readouterr().out


@pytest.mark.slow
def test_text_report_has_the_graded_tiers_and_guided_apart(run_dir: Path, capsys) -> None:
    out = report(run_dir, capsys)
    table = out[out.index("by tier"):].splitlines()
    rows = {line.split()[0]: line.split()[1] for line in table[2:5]}
    assert rows == {"easy": "0/1", "graded": "0/1", "guided": "1/1"}


@pytest.mark.slow
def test_json_md_and_html_keep_guided_apart(run_dir: Path, capsys) -> None:
    data = json.loads(report(run_dir, capsys, "--format", "json"))
    assert [(t["tier"], t["resolved"], t["tasks"]) for t in data["tiers"]] == [
        ("easy", 0, 1), ("graded", 0, 1), ("guided", 1, 1)]
    # the easy task's unreadable first answer counts in its tier, not in guided
    assert [(t["tier"], t["steps"], t["format_errors"]) for t in data["tiers"]] == [
        ("easy", 2, 1), ("graded", 2, 1), ("guided", 2, 0)]
    assert data["metrics"]["graded_resolved_rate"]["value"] == 0.0
    assert data["metrics"]["guided_resolved_rate"]["value"] == 1.0
    md = report(run_dir, capsys, "--format", "md")
    assert "## Tiers" in md and "| guided | 1/1 |" in md
    html = report(run_dir, capsys, "--format", "html")
    assert "<h2>Tiers</h2>" in html and "guided" in html


@pytest.mark.slow
def test_check_and_compare_show_guided_apart(run_dir: Path, capsys) -> None:
    capsys.readouterr()
    cli.main(["check", str(run_dir)])
    out = capsys.readouterr().out
    assert "1 guided tasks (the issue states the fix) reported apart: guided 1/1 resolved, " \
           "graded 0/1" in out
    assert cli.main(["compare", str(run_dir), str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "graded (easy/medium/hard) resolved / attempted" in out
    assert "guided (the issue states the fix) resolved / attempted" in out
