"""The inline accuracy scorer: MLPerf's AgenticInferenceInlineScorer rules (score.py's
docstring names the upstream file), each rule with the exact score MLPerf gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeagent.replay.result_summary import mlperf_scores
from edgeagent.replay.score import (
    executables,
    intent_codes,
    is_workflow,
    mean_score,
    mlperf_actions,
    model_intent,
    multiset_iou,
    own_actions,
    parse_generated_calls,
    score_intent,
    score_turn,
)

DATASET = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "mlperf" / \
    "agentic_coding_2.5h.jsonl"


def bash(command: str, key: str = "command") -> tuple[str, dict[str, str]]:
    return ("bash", {key: command})


def turn_score(reference: str, predicted: str) -> float | None:
    return score_turn(mlperf_actions([bash(reference)]), mlperf_actions([bash(predicted)]))


def test_quoted_strings_and_backticks_are_removed() -> None:
    assert executables("grep -n 'foo | bar; ls' src") == ["grep"]
    assert executables('echo "a && cat b" && ls') == ["ls"]  # echo is not listed
    assert executables("python -c 'import os; os.system(\"rm -rf /\")'") == ["python"]
    # a backtick span is a quoted span: `ls` inside it does not count
    assert executables("cat `ls *.py | head -1`") == ["cat"]
    assert turn_score("cat `ls x`", "cat x") == 1.0


@pytest.mark.parametrize("command, expected", [
    ("cat a | grep x | wc -l", ["cat", "grep", "wc"]),
    ("cd repo && make || echo failed", ["make"]),  # cd, echo: unlisted, ignored
    ("ls; pwd;", ["ls"]),
    ("git status\ngit diff", ["git", "git"]),
    ("ls & cat x", ["ls"]),  # a lone & does not separate stages
])
def test_split_on_pipes_and_lists(command: str, expected: list[str]) -> None:
    assert executables(command) == expected


@pytest.mark.parametrize("word, action", [
    ("less", "cat"), ("more", "cat"), ("rg", "grep"), ("ag", "grep"), ("egrep", "grep"),
    ("fgrep", "grep"), ("gawk", "awk"), ("wget", "curl"), ("locate", "find"),
    ("apt-get", "apt"), ("pip3", "pip"), ("py", "python"), ("sphinx-build", "sphinx"),
    (".", "source"), ("timeout", "timeout"),
])
def test_alias_table(word: str, action: str) -> None:
    assert executables(f"{word} x") == [action]


def test_alias_makes_different_tools_agree() -> None:
    assert turn_score("less a.py && rg foo", "cat a.py | grep foo") == 1.0


@pytest.mark.parametrize("command", ["echo hi", "cd src", "pwd", "node x.js", "npm test",
                                     "python3-config", "./run.sh", "bash -c 'ls'"])
def test_unlisted_executables_are_ignored(command: str) -> None:
    assert executables(command) == []


def test_unlisted_executable_leaves_the_iou() -> None:
    # reference cd + ls -> [ls]; model ls + echo -> [ls]: full agreement by MLPerf's rules
    assert turn_score("cd src && ls", "ls; echo done") == 1.0
    assert turn_score("ls && cat a", "ls") == 0.5


@pytest.mark.parametrize("command, expected", [
    ("FOO=1 BAR=x pytest -q", ["pytest"]),
    ("sudo apt-get install x", ["apt"]),
    ("env PYTHONPATH=. python3 t.py", ["python"]),
    ("time nice exec command git log", ["git"]),
    # wrapper options are not skipped: the option is the "executable", unlisted, ignored
    ("sudo -E python3 t.py", []),
    ("env -i HOME=/tmp ls", []),
    # timeout is no wrapper, it is an action of its own
    ("timeout 30 pytest", ["timeout"]),
    ("nohup python x.py", []),
])
def test_assignments_and_wrappers(command: str, expected: list[str]) -> None:
    assert executables(command) == expected


def test_basename_lower_case_and_version_suffix() -> None:
    assert executables("/usr/bin/Python3.11 -m pip list") == ["python"]
    assert executables("python3.11.4 a.py") == ["python"]
    assert executables("python3 a.py && python2.7 b.py && PYTHON c.py") == ["python"] * 3
    assert executables("/bin/") == []
    assert executables("pythonista x") == []


def test_heredoc_bodies_are_not_stripped() -> None:
    # MLPerf's scoring.py scorer splits a heredoc's body on newlines like any command: each
    # body line whose first word is listed counts (multi_turn_inline_accuracy.py would strip)
    command = "cat > a.py <<'EOF'\nimport os\nprint(1)\nEOF\npython a.py"
    assert executables(command) == ["cat", "python"]
    body = "python - <<EOF\nfind . -name x\ngrep y z\nEOF"
    assert executables(body) == ["python", "find", "grep"]
    assert turn_score(body, "python t.py") == pytest.approx(1 / 3)


def test_command_or_cmd_argument() -> None:
    assert mlperf_actions([bash("git status", "cmd")]) == ["git"]
    assert mlperf_actions([("bash", {"command": "", "cmd": "ls"})]) == ["ls"]
    assert mlperf_actions([("bash", {"command": "ls", "cmd": "cat"})]) == ["ls"]
    assert mlperf_actions([("bash", {"command": ["ls"]})]) == []
    assert mlperf_actions([("bash", {"script": "ls"})]) == []
    assert mlperf_actions([("bash", '{"cmd": "make"}')]) == ["make"]  # JSON text arguments
    assert mlperf_actions([("bash", "not json")]) == []


def test_only_calls_named_bash_count() -> None:
    calls = [("run", {"command": "ls"}), ("Bash", {"command": "ls"}),
             ("read_file", {"path": "a.py"}), bash("cat a"), bash("ls")]
    assert mlperf_actions(calls) == ["cat", "ls"]


def test_multiset_iou() -> None:
    assert multiset_iou(["ls", "cat"], ["ls", "cat"]) == 1.0
    assert multiset_iou(["ls", "ls"], ["ls"]) == 0.5  # multiset, not set
    assert multiset_iou(["ls", "cat"], ["ls", "grep"]) == pytest.approx(1 / 3)
    assert multiset_iou(["ls"], []) == 0.0
    assert multiset_iou([], []) is None


def test_turn_without_ground_truth_is_excluded() -> None:
    # a recorded turn with no listed executable (or no bash call) has no ground truth
    assert turn_score("cd src && echo hi", "ls") is None
    assert score_turn([], ["ls"]) is None
    assert score_turn([], None) is None
    assert score_turn(["ls"], None) == 0.0  # scorable, output missing: 0
    assert score_turn(["ls"], []) == 0.0
    assert mean_score([1.0, None, 0.0, None, 0.5]) == 0.5
    assert mean_score([None]) is None
    assert mean_score([1.0, 0.0, 0.0]) == 0.3333  # rounded to 4, as MLPerf reports


def test_workflow_conversations_by_id() -> None:
    assert is_workflow("sim_000123")
    assert not is_workflow("sim_12a") and not is_workflow("django__django-1")
    assert not is_workflow("xsim_1")


def test_workflow_intent_codes() -> None:
    assert intent_codes(["i001", "I002", None, ""]) == {"I001", "I002"}
    assert intent_codes("I001") == set()
    assert intent_codes(None) == set()
    # explicit `intent:` wins (any case), reasoning before content
    assert model_intent("then I007", "intent: I042") == "I042"
    assert model_intent("INTENT: i003", "intent: I042") == "I003"
    # otherwise the last bare code, reasoning first
    assert model_intent("I001 or I002", "I009") == "I002"
    assert model_intent(None, "maybe I001, finally I005") == "I005"
    assert model_intent(None, "i005 X1234 I12") is None  # bare codes are case-sensitive
    assert score_intent({"I042"}, model_intent(None, "intent: I042")) == 1.0
    assert score_intent({"I042", "I043"}, "I043") == 1.0
    assert score_intent({"I042"}, "I041") == 0.0
    assert score_intent({"I042"}, None) == 0.0
    assert score_intent({"I042"}, "I042", missing=True) == 0.0
    assert score_intent(set(), "I042") is None  # no ground truth: excluded


def test_our_own_tools_have_their_own_rule() -> None:
    calls = [("run", {"command": "sudo python3.11 -m pytest"}), ("read_file", {"path": "a"}),
             ("Edit", {"path": "a"})]
    assert own_actions(calls) == ["python", "read_file", "edit"]
    assert own_actions([("run", {"command": "less a | rg b"})]) == ["cat", "grep"]
    assert mlperf_actions(calls) == []  # none of them is MLPerf's `bash`


def test_mlperf_scores_shape() -> None:
    turns = [
        {"conversation_id": "c", "turn": 2, "status": "completed", "score": 1.0,
         "domain": "coding"},
        {"conversation_id": "c", "turn": 4, "status": "dropped", "score": 0.0},
        {"conversation_id": "c", "turn": 6, "status": "completed", "score": None},
        {"conversation_id": "sim_1", "turn": 2, "status": "completed", "score": 0.0,
         "domain": "workflow"},
    ]
    out = mlperf_scores(turns)
    assert out["score"] == 0.3333
    assert out["turns"] == {"issued": 4, "expected": 3, "observed": 2, "missing": 1,
                            "scored": 3}
    assert out["domains"] == {"coding": {"score": 0.5, "scored": 2},
                              "workflow": {"score": 0.0, "scored": 1}}
    assert out["excluded_turns"] == [{"conversation_id": "c", "turn": 6, "domain": "coding",
                                      "exclude_reason": "no ground truth"}]


def test_generated_calls_are_parsed_in_every_format() -> None:
    bare = '{"name": "run", "arguments": {"command": "ls"}}'
    tagged = ('<tool_call>\n{"name": "bash", "arguments": {"command": "cat x"}}\n</tool_call>'
              '<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}</tool_call>')
    assert parse_generated_calls(bare) == [("run", {"command": "ls"})]
    assert parse_generated_calls(tagged) == [("bash", {"command": "cat x"}),
                                             ("bash", {"command": "pwd"})]
    assert parse_generated_calls("no call here {") == []


def test_generated_calls_survive_nesting_past_the_recursion_limit() -> None:
    """A generation of "[[[[..." inside an object (a model can emit it for a whole turn) is
    skipped like any text that does not decode; a call after it is still found."""
    deep = '{"name": "x", "arguments": ' + "[" * 100_000
    call = '{"name": "run", "arguments": {"command": "ls"}}'
    assert parse_generated_calls(deep) == []
    assert parse_generated_calls(deep + " " + call) == [("run", {"command": "ls"})]
    nested_args = '{"name": "run", "arguments": "' + "[" * 100_000 + '"}'
    assert parse_generated_calls(nested_args) == [("run", {})]


@pytest.mark.skipif(not DATASET.is_file(), reason="MLPerf v6.1 dataset not present")
def test_recorded_ground_truth_scores_itself_on_the_real_dataset() -> None:
    """Every assistant turn of the dataset scored against itself: 1.0 where MLPerf scores it,
    excluded exactly where MLPerf finds no ground truth (checked against the raw JSON)."""
    from edgeagent.replay.dataset import load_dataset

    raw = {}
    for line in DATASET.read_text().splitlines():
        row = json.loads(line)
        raw[(row["conversation_id"], row["turn"])] = row
    scored = excluded = 0
    for conv in load_dataset(DATASET):
        for prev, row in zip(conv.rows, conv.rows[1:], strict=False):
            if row.role != "assistant" or prev.role not in ("user", "tool"):
                continue
            calls = [(c.name, c.args) for c in row.tool_calls or ()]
            truth = mlperf_actions(calls)
            score = score_turn(truth, truth)
            # the same rules applied to the raw tool_calls as MLPerf reads them
            raw_calls = [(c["function"]["name"], c["function"]["arguments"])
                         for c in raw[(conv.id, row.turn)].get("tool_calls") or []]
            assert truth == mlperf_actions(raw_calls)
            assert score == (1.0 if truth else None)
            scored += score is not None
            excluded += score is None
    assert scored > 0 and excluded > 0


class _ScriptedEngine:
    """Returns scripted texts in order; no template, so the replay renders as text."""

    tool_family = None

    def __init__(self, texts: list[str]) -> None:
        self.texts = list(texts)

    def generate(self, messages, max_tokens, grammar=None, **kw):
        from edgeagent.engine.base import Generation

        return Generation(self.texts.pop(0), (1,), "stop", 10, 0, 10, 2, 0, 1, 2, 3)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class _Sink:
    def emit(self, event) -> None:
        pass


def _replay(rows: list[dict], texts: list[str]):
    from edgeagent.replay.dataset import conversations_from_rows, parse_row
    from edgeagent.replay.replayer import ReplaySettings, replay_conversation

    (conv,) = conversations_from_rows([parse_row(r, "t", i) for i, r in enumerate(rows, 1)],
                                      "t")
    settings = ReplaySettings(use_grammar=False, tool_format="text")
    return replay_conversation(conv, _ScriptedEngine(texts), _Sink(), settings).turns


def _tool_call(i: str, name: str, args: dict) -> dict:
    return {"id": i, "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}


def _rows(conv: str, calls: list[list[dict]], final: dict) -> list[dict]:
    rows: list[dict] = [{"conversation_id": conv, "turn": 1, "role": "user", "content": "go",
                         "system": "s"}]
    for turn_calls in calls:
        rows.append({"conversation_id": conv, "turn": len(rows) + 1, "role": "assistant",
                     "tool_calls": turn_calls})
        rows.append({"conversation_id": conv, "turn": len(rows) + 1, "role": "tool",
                     "tool_results": [{"tool_call_id": c["id"], "content": "ok"}
                                      for c in turn_calls]})
    rows.append({"conversation_id": conv, "turn": len(rows) + 1, "role": "assistant",
                 **final})
    return rows


def test_replay_scores_coding_turns_by_mlperf_and_own_tools_apart() -> None:
    rows = _rows("django-1", [[_tool_call("a", "bash", {"cmd": "less a.py | rg x"})],
                              [_tool_call("b", "read_file", {"path": "a.py"})]],
                 {"content": "done"})
    texts = ['{"name": "bash", "arguments": {"command": "cat a.py && grep x a.py"}}',
             '{"name": "read_file", "arguments": {"path": "a.py"}}', "all done"]
    first, second, last = _replay(rows, texts)
    assert (first.score, first.reference_executables) == (1.0, ("cat", "grep"))
    assert first.own_score is None and first.domain == "coding"
    # a turn of our own tools has no MLPerf ground truth; our rule scores it apart
    assert (second.score, second.own_score) == (None, 1.0)
    assert last.score is None  # a plain message: no ground truth, excluded
    assert mean_score(t.score for t in (first, second, last)) == 1.0


def test_replay_scores_workflow_turns_by_intent_code() -> None:
    rows = _rows("sim_000007", [[_tool_call("a", "lookup", {"q": "x"})]],
                 {"content": "intent: I042", "intent_codes": ["I042"]})
    rows[1]["intent_codes"] = ["i010", "I011"]
    texts = ['<think>maybe I010</think>{"name": "lookup", "arguments": {"q": "x"}}',
             "I think I041, final intent: I043"]
    first, second = _replay(rows, texts)
    assert first.domain == second.domain == "workflow"
    assert first.reference_executables == ("I010", "I011")
    assert (first.predicted_executables, first.score) == (("I010",), 1.0)
    assert (second.predicted_executables, second.score) == (("I043",), 0.0)
