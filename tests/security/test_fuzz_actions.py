"""Model-output fuzzing: whatever the model writes becomes an action or a format error.

The action parser and the tool dispatcher are fed random and adversarial outputs: every
output must parse to an Action or a FormatError (never raise), and every Action must come back
from the Toolbox as a ToolResult (never raise) with the workspace left inside its root.
Commands (`run`, `run_tests`) are not executed here: their confinement is the sandbox's job and
is tested with the escape attempts; the dispatcher's argument checking is what is fuzzed.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgeagent.agent.actions import Action, FormatError, parse_action
from edgeagent.sandbox.process import ProcessLimits
from edgeagent.sandbox.tools import TOOL_SPECS, Toolbox, ToolResult
from edgeagent.sandbox.workspace import Workspace

NAMES = [s.name for s in TOOL_SPECS]
FILE_TOOLS = ("list_dir", "read_file", "grep", "edit", "write_file", "submit")
RANDOM_CASES = 100_000

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
arg_keys = st.sampled_from(
    ["path", "start_line", "end_line", "pattern", "old", "new", "content", "command", "x"])
hostile_paths = st.sampled_from([
    "../outside.txt", "/etc/passwd", "a/../../x", "/proc/self/root/etc/hostname", "",
    ".", "..", "link_out/x", "\x00", "a" * 5000, "~/.bashrc", "pkg/../../../etc",
])
tool_calls = st.fixed_dictionaries({
    "name": st.sampled_from([*NAMES, "rm", "", "READ_FILE"]) | st.text(max_size=12),
    "arguments": st.dictionaries(arg_keys, json_values | hostile_paths, max_size=4)
    | json_values,
})


_CASES = {"parsed": 0, "dispatched": 0}


@pytest.fixture(scope="module", autouse=True)
def _count_cases(reliability) -> Iterator[None]:
    yield
    reliability("fuzz", cases=_CASES["parsed"] + _CASES["dispatched"],
                parser_cases=_CASES["parsed"], dispatcher_cases=_CASES["dispatched"])


def _check_parse(text: str) -> Action | FormatError:
    _CASES["parsed"] += 1
    result = parse_action(text, TOOL_SPECS)
    assert isinstance(result, Action | FormatError)
    if isinstance(result, Action):
        assert result.name in NAMES and isinstance(result.arguments, dict)
    return result


@given(st.text(max_size=300))
@settings(max_examples=1500, deadline=None)
def test_any_text_is_an_action_or_a_format_error(text: str) -> None:
    _check_parse(text)


@given(tool_calls, st.text(max_size=20), st.text(max_size=20))
@settings(max_examples=400, deadline=None)
def test_json_tool_calls_wrapped_in_prose_parse_or_fail_cleanly(
    call: dict, before: str, after: str
) -> None:
    _check_parse(before + json.dumps(call) + after)


@pytest.mark.parametrize("text", [
    "[" * 100_000,  # nesting past the recursion limit
    '{"name": "read_file", "arguments": ' + "[" * 50_000 + "}",
    "{" * 20_000,  # many candidate object starts
    '{"name": "read_file", "arguments": {"path": "a"}' * 500,  # never closed
    '{"name": "edit", "arguments": {"path": "\\ud800", "old": "x", "new": "y"}}',  # lone surrogate
    '{"name": 1e400, "arguments": NaN}',
    '{"name": "submit", "name": "run", "arguments": {}}',  # duplicate keys
    "\x00\x01\x02{}\ufeff",
])
def test_adversarial_outputs_parse_or_fail_cleanly(text: str) -> None:
    _check_parse(text)


def _mutate(rng: random.Random, seed_texts: list[str]) -> str:
    text = list(rng.choice(seed_texts))
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        pos = rng.randint(0, len(text))
        if op < 0.4 and text:
            del text[min(pos, len(text) - 1)]
        elif op < 0.8:
            text.insert(pos, rng.choice('{}[]":,\\ ' + string.ascii_letters + "\u00e9\u2028"))
        else:
            text[pos:pos] = list(rng.choice(seed_texts))[: rng.randint(0, 30)]
    return "".join(text)


def test_100k_mutated_tool_calls_parse_or_fail_cleanly() -> None:
    seeds = [
        '{"name": "read_file", "arguments": {"path": "pkg/calc.py", "start_line": 1}}',
        '{"name": "edit", "arguments": {"path": "a.py", "old": "x = 1", "new": "x = 2"}}',
        '{"name": "run", "arguments": {"command": "python -m pytest -q"}}',
        'Sure! {"name": "submit", "arguments": {}} done',
    ]
    rng = random.Random(20261130)
    kinds = {"action": 0, "format_error": 0}
    for _ in range(RANDOM_CASES):
        result = _check_parse(_mutate(rng, seeds))
        kinds["action" if isinstance(result, Action) else "format_error"] += 1
    assert sum(kinds.values()) == RANDOM_CASES
    assert kinds["action"] > 0 and kinds["format_error"] > 0  # both paths were exercised


@pytest.fixture(scope="module")
def toolbox(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    base = tmp_path_factory.mktemp("fuzz")
    repo = base / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (base / "outside.txt").write_text("secret\n")
    ws = Workspace.create(repo, parent=base)
    (ws.root / "link_out").symlink_to(base)
    return Toolbox(ws, "python -c pass", ProcessLimits())


@pytest.mark.slow
@given(
    st.sampled_from(FILE_TOOLS) | st.text(max_size=8),
    st.dictionaries(arg_keys, json_values | hostile_paths, max_size=4) | json_values,
)
@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_dispatcher_returns_a_result_for_any_arguments(
    toolbox: Toolbox, name: object, args: object
) -> None:
    _CASES["dispatched"] += 1
    result = toolbox.call(name, args)  # type: ignore[arg-type]
    assert isinstance(result, ToolResult) and isinstance(result.output, str)
    outside = toolbox.workspace.root.parent.parent / "outside.txt"
    assert outside.read_text() == "secret\n"  # nothing outside the workspace changed
    assert "secret" not in result.output or name == "list_dir"


def test_dispatcher_never_reads_outside_through_the_link(toolbox: Toolbox) -> None:
    result = toolbox.call("read_file", {"path": "link_out/outside.txt"})
    assert result.error and "secret" not in result.output
    assert Path(toolbox.workspace.root, "pkg", "calc.py").is_file()
