"""The MLPerf agentic JSONL schema: small datasets written here, valid and malformed; every
malformed one fails with a message naming the line and the field, through the loader and the
command line (exit code 2, one line, no traceback)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.replay.dataset import (
    DatasetError,
    dump_rows,
    load_dataset,
    select_conversations,
)

BASH = {"type": "function", "function": {
    "name": "bash", "description": "run a command",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                   "required": ["command"]}}}


def call(call_id: str, command: str) -> dict:
    return {"id": call_id, "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": command})}}


def conversation(conv: str = "c1") -> list[dict]:
    return [
        {"conversation_id": conv, "turn": 1, "role": "user", "content": "fix the bug",
         "system": "You are an agent.", "tools": [BASH]},
        {"conversation_id": conv, "turn": 2, "role": "assistant", "content": "",
         "tool_calls": [call("a1", "ls -la")]},
        {"conversation_id": conv, "turn": 3, "role": "tool",
         "tool_results": [{"tool_call_id": "a1", "content": "a.py\nb.py"}], "delay_seconds": 0.2},
        {"conversation_id": conv, "turn": 4, "role": "assistant",
         "reasoning_content": "look at a.py",
         "tool_calls": [call("a2", "cat a.py"), call("a3", "python3.11 -m pytest -q")]},
        {"conversation_id": conv, "turn": 5, "role": "tool",
         "tool_results": [{"tool_call_id": "a2", "content": "print(1)"},
                          {"tool_call_id": "a3", "content": "1 passed"}], "delay_seconds": 1.5},
        {"conversation_id": conv, "turn": 6, "role": "assistant", "content": "Done."},
    ]


def write(tmp_path: Path, rows: list[dict | str]) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def load_error(tmp_path: Path, rows: list[dict | str]) -> str:
    path = write(tmp_path, rows)
    with pytest.raises(DatasetError) as exc:
        load_dataset(path)
    return str(exc.value)


def test_valid_dataset_loads_with_every_field(tmp_path: Path) -> None:
    path = write(tmp_path, conversation("c1") + conversation("c2"))
    convs = load_dataset(path)
    assert [c.id for c in convs] == ["c1", "c2"]
    c1 = convs[0]
    assert c1.system == "You are an agent." and c1.tools[0]["function"]["name"] == "bash"
    assert c1.assistant_turns == 3
    assert [r.role for r in c1.rows] == ["user", "assistant", "tool", "assistant", "tool",
                                         "assistant"]
    assert c1.rows[3].reasoning_content == "look at a.py"
    assert [c.args for c in c1.rows[3].tool_calls] == [{"command": "cat a.py"},
                                                       {"command": "python3.11 -m pytest -q"}]
    assert c1.rows[4].delay_seconds == 1.5
    # the file written back is the file read
    assert dump_rows(convs) == path.read_text()


def test_a_dataset_metadata_row_is_skipped_as_mlperfs_loader_skips_it(tmp_path: Path) -> None:
    # MLPerf's AgenticInferenceDataset drops `"_type": "dataset_metadata"` rows first
    header = {"_type": "dataset_metadata", "version": "1.0", "conversations": 2}
    plain = load_dataset(write(tmp_path, conversation("c1") + conversation("c2")))
    with_header = load_dataset(write(tmp_path, [header, *conversation("c1"),
                                                *conversation("c2")]))
    assert with_header == plain


def test_an_assistant_row_without_calls_is_a_plain_message(tmp_path: Path) -> None:
    rows = conversation()
    (conv,) = load_dataset(write(tmp_path, rows))
    assert conv.rows[5].tool_calls is None and conv.rows[5].content == "Done."
    # `tool_calls: []` (our older exports) is read as the same plain message, and written
    # back as MLPerf's schema wants it: without tool_calls
    rows[5]["tool_calls"] = []
    (legacy,) = load_dataset(write(tmp_path, rows))
    assert legacy == conv and '"tool_calls": []' not in dump_rows([legacy])
    # a plain message needs its text; a row with neither text nor calls names both
    del rows[3]["tool_calls"]
    msg = load_error(tmp_path, rows)
    assert "data.jsonl:4:" in msg and "'content' is missing" in msg and "tool_calls" in msg


def test_a_user_row_may_follow_tool_results(tmp_path: Path) -> None:
    # MLPerf's state machine: tool -> user is valid; user -> user is not
    rows = conversation()[:3] + [{"conversation_id": "c1", "turn": 4, "role": "user",
                                  "content": "and the tests?"}]
    (conv,) = load_dataset(write(tmp_path, rows))
    assert [r.role for r in conv.rows] == ["user", "assistant", "tool", "user"]
    rows.append({"conversation_id": "c1", "turn": 5, "role": "user", "content": "again"})
    assert "two user rows" in load_error(tmp_path, rows)


def test_bad_json_in_arguments_names_line_and_field(tmp_path: Path) -> None:
    rows = conversation()
    rows[1]["tool_calls"][0]["function"]["arguments"] = '{"command": "ls'
    msg = load_error(tmp_path, rows)
    assert "data.jsonl:2:" in msg and "tool_calls[0].function.arguments" in msg
    assert "not valid JSON" in msg


def test_arguments_must_be_a_json_string_of_an_object(tmp_path: Path) -> None:
    rows = conversation()
    rows[1]["tool_calls"][0]["function"]["arguments"] = {"command": "ls"}
    assert "data.jsonl:2:" in load_error(tmp_path, rows)
    rows[1]["tool_calls"][0]["function"]["arguments"] = "[1, 2]"
    assert "must encode a JSON object" in load_error(tmp_path, rows)


def test_tool_result_matching_no_call_names_line_and_field(tmp_path: Path) -> None:
    rows = conversation()
    rows[2]["tool_results"][0]["tool_call_id"] = "zz"
    msg = load_error(tmp_path, rows)
    assert "data.jsonl:3:" in msg and "tool_results[0].tool_call_id" in msg and "'zz'" in msg


def test_unanswered_tool_call_is_an_error(tmp_path: Path) -> None:
    rows = conversation()
    rows[4]["tool_results"] = rows[4]["tool_results"][:1]
    msg = load_error(tmp_path, rows)
    assert "data.jsonl:5:" in msg and "a3" in msg


def test_turns_out_of_order_name_the_line(tmp_path: Path) -> None:
    rows = conversation()
    rows[2], rows[3] = rows[3], rows[2]
    msg = load_error(tmp_path, rows)
    assert "data.jsonl:3:" in msg and "field 'turn' is 4, expected 2 or 3" in msg
    rows = conversation()
    rows[3]["turn"] = 2  # goes back
    assert "data.jsonl:4:" in load_error(tmp_path, rows)


def test_tool_rows_may_share_their_assistant_turn_number(tmp_path: Path) -> None:
    rows = conversation()
    for row, turn in zip(rows, (1, 2, 2, 3, 3, 4), strict=True):
        row["turn"] = turn
    (conv,) = load_dataset(write(tmp_path, rows))
    assert [r.turn for r in conv.rows] == [1, 2, 2, 3, 3, 4]


def test_role_order_and_conversation_start(tmp_path: Path) -> None:
    rows = conversation()
    rows[2]["role"] = "assistant"
    rows[2]["content"] = "text"
    assert "data.jsonl:3:" in load_error(tmp_path, rows)  # assistant after assistant
    headless = [dict(r, turn=r["turn"] - 1) for r in conversation()[1:]]
    assert "starts with a user row" in load_error(tmp_path, headless)
    # a tool row after an assistant turn without calls
    rows = conversation() + [{"conversation_id": "c1", "turn": 7, "role": "tool",
                              "tool_results": [{"tool_call_id": "a1", "content": "x"}]}]
    assert "data.jsonl:7:" in load_error(tmp_path, rows)


def test_split_conversation_and_bad_lines(tmp_path: Path) -> None:
    rows = conversation("c1")[:3] + conversation("c2") + conversation("c1")[3:]
    assert "appears again" in load_error(tmp_path, rows)
    msg = load_error(tmp_path, conversation()[:2] + ["{not json"])
    assert "data.jsonl:3:" in msg and "not a JSON object" in msg
    rows = conversation()
    rows[0]["turn"] = "1"
    assert "data.jsonl:1:" in load_error(tmp_path, rows)
    rows = conversation()
    rows[2]["delay_seconds"] = -1
    assert "data.jsonl:3:" in load_error(tmp_path, rows)


def test_selection_by_count_and_ids(tmp_path: Path) -> None:
    convs = load_dataset(write(tmp_path, conversation("a") + conversation("b")
                               + conversation("c")))
    assert [c.id for c in select_conversations(convs, "2")] == ["a", "b"]
    assert [c.id for c in select_conversations(convs, "c,a")] == ["c", "a"]
    with pytest.raises(DatasetError, match="no conversation 'x'"):
        select_conversations(convs, "x")


def test_cli_reports_a_malformed_dataset_in_one_line(tmp_path: Path) -> None:
    rows = conversation()
    rows[1]["tool_calls"][0]["function"]["arguments"] = "{oops"
    path = write(tmp_path, rows)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(["replay", str(path), "--out", str(tmp_path / "runs")])
    assert code == 2
    lines = err.getvalue().strip().splitlines()
    assert len(lines) == 1 and f"{path}:2:" in lines[0] and "Traceback" not in err.getvalue()
    assert not (tmp_path / "runs").exists()  # failed before loading a model


def test_bundled_smoke_workload_is_valid() -> None:
    from edgeagent.run import default_dataset

    convs = load_dataset(default_dataset())
    assert [c.id for c in convs] == ["fix-add", "fix-shout", "fix-sum-to"]
    assert all(c.assistant_turns >= 4 for c in convs)


def test_replay_datasets_are_not_listed_as_suites() -> None:
    from edgeagent.errors import SuiteError
    from edgeagent.suite import bundled_suite_names, load_suite

    assert "smoke" in bundled_suite_names() and "replay" not in bundled_suite_names()
    with pytest.raises(SuiteError, match="unknown suite 'replay'"):
        load_suite("replay")
