"""The inline accuracy scorer: MLPerf's normalisation of bash executables and multiset IoU."""

from __future__ import annotations

import pytest

from edgeagent.replay.score import (
    call_executables,
    executables,
    multiset_iou,
    parse_generated_calls,
    score_turn,
)


def test_quoted_strings_are_removed() -> None:
    assert executables("grep -n 'foo | bar; baz' src") == ["grep"]
    assert executables('echo "a && b" && ls') == ["echo", "ls"]
    assert executables("python -c 'import os; os.system(\"rm -rf /\")'") == ["python"]


@pytest.mark.parametrize("command, expected", [
    ("cat a | grep x | wc -l", ["cat", "grep", "wc"]),
    ("cd repo && make || echo failed", ["cd", "make", "echo"]),
    ("ls; pwd;", ["ls", "pwd"]),
    ("git status\ngit diff", ["git", "git"]),
])
def test_split_on_pipes_and_lists(command: str, expected: list[str]) -> None:
    assert executables(command) == expected


@pytest.mark.parametrize("command, expected", [
    ("FOO=1 BAR=x pytest -q", ["pytest"]),
    ("sudo apt-get install x", ["apt-get"]),
    ("sudo -E env PYTHONPATH=. python3 t.py", ["python"]),
    ("timeout 30 pytest", ["pytest"]),
    ("timeout -s KILL 10s make test", ["make"]),
    ("env -i HOME=/tmp ls", ["ls"]),
])
def test_assignments_and_wrappers_dropped(command: str, expected: list[str]) -> None:
    assert executables(command) == expected


def test_basename_lower_case_and_python_versions() -> None:
    assert executables("/usr/bin/Python3.11 -m pip list") == ["python"]
    assert executables("./scripts/Run.SH") == ["run.sh"]
    assert executables("python3 a.py && python2.7 b.py && python c.py") == ["python"] * 3
    assert executables("pythonista x") == ["pythonista"]


def test_multiset_iou() -> None:
    assert multiset_iou(["ls", "cat"], ["ls", "cat"]) == 1.0
    assert multiset_iou(["ls", "ls"], ["ls"]) == 0.5  # multiset, not set
    assert multiset_iou(["ls", "cat"], ["ls", "grep"]) == pytest.approx(1 / 3)
    assert multiset_iou(["ls"], []) == 0.0
    assert multiset_iou([], []) == 1.0


def test_missing_output_scores_zero() -> None:
    assert score_turn(["ls"], None) == 0.0
    assert score_turn([], None) == 0.0
    assert score_turn(["ls"], ["ls"]) == 1.0


def test_our_tools_map_to_executables() -> None:
    # our `run` tool is the bash equivalent; other tools count as their own name
    assert call_executables("run", {"command": "sudo python3.11 -m pytest"}) == ["python"]
    assert call_executables("bash", {"command": "ls | wc"}) == ["ls", "wc"]
    assert call_executables("read_file", {"path": "a.py"}) == ["read_file"]


def test_generated_calls_are_parsed_in_every_format() -> None:
    bare = '{"name": "run", "arguments": {"command": "ls"}}'
    tagged = ('<tool_call>\n{"name": "bash", "arguments": {"command": "cat x"}}\n</tool_call>'
              '<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}</tool_call>')
    assert parse_generated_calls(bare) == [("run", {"command": "ls"})]
    assert parse_generated_calls(tagged) == [("bash", {"command": "cat x"}),
                                             ("bash", {"command": "pwd"})]
    assert parse_generated_calls("no call here {") == []
