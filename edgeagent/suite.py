"""Benchmark suites as data: task.yaml schema, discovery, hidden-test grading, oracle validation.

A suite is a directory of task directories, each holding `task.yaml`, `repo/` (what the agent
starts from), `hidden_tests/` (copied in only for grading, so the agent never sees them) and,
optionally, `oracle.yaml` (a reference solution replayed through the real tools to prove the
task is solvable and the hidden tests discriminate).
"""

from __future__ import annotations

import difflib
import json
import math
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from edgeagent.errors import SuiteError
from edgeagent.safe_yaml import NoAliasLoader
from edgeagent.sandbox.process import CommandResult, ProcessLimits, run_command
from edgeagent.sandbox.tools import ALL_TOOL_SPECS, Toolbox, ToolResult
from edgeagent.sandbox.workspace import Workspace

TASK_FILE = "task.yaml"
ORACLE_FILE = "oracle.yaml"
REPO_DIR = "repo"
HIDDEN_TESTS_DIR = "hidden_tests"

# Matches ProcessLimits' default, so a task that says nothing behaves like a bare command.
DEFAULT_COMMAND_TIMEOUT_S = 60.0

_REQUIRED_KEYS = {
    "id": "the task id, equal to the task's directory name",
    "title": "a one-line title",
    "issue": "the issue text the agent should solve",
    "test_command": "the command that runs the visible tests",
    "hidden_test_command": "the command that runs the hidden tests",
}
_OPTIONAL_KEYS = ("limits", "tags", "tier", "fail_to_pass", "pass_to_pass")
_LIMIT_KEYS = ("max_steps", "wall_s", "command_timeout_s", "test_timeout_s")
SUITE_FILE = "suite.yaml"
_SUITE_KEYS = ("description", "strict")

TIERS = ("easy", "medium", "hard")
# The kinds of work a task exercises; a task's tags name one or more (plus any free tags).
TASK_KINDS = (
    "one-line-bug",
    "multi-file-bug",
    "feature",
    "failing-test-diagnosis",
    "refactor",
    "config-cli",
    "performance",
    "docs-driven",
)
# A unittest id: dotted module path, optional class, test method (tests_hidden.test_x.T.test_y).
_TEST_ID = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
# Per-test limit when grading by test id: a runaway test fails on its own, not the whole run.
DEFAULT_TEST_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class TaskLimits:
    """Per-task limits; None means "use the run config's value"."""

    max_steps: int | None
    wall_s: float | None
    command_timeout_s: float
    test_timeout_s: float = DEFAULT_TEST_TIMEOUT_S


@dataclass(frozen=True)
class OracleStep:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    issue: str
    test_command: str
    hidden_test_command: str
    limits: TaskLimits
    tags: tuple[str, ...]
    dir: Path
    repo_dir: Path
    hidden_tests_dir: Path
    tier: str | None = None
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(t for t in self.tags if t in TASK_KINDS)


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    tasks: tuple[Task, ...]
    description: str = ""
    strict: bool = False  # every task must declare tier, a kind tag and fail_to_pass


@dataclass(frozen=True)
class TestOutcome:
    """One graded test id: pass | fail | error | timeout | missing (the id did not load)."""

    __test__ = False  # not a pytest class

    id: str
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Grade:
    resolved: bool
    exit_code: int | None
    output: str
    wall_ms: float
    timed_out: bool
    tests: tuple[TestOutcome, ...] = ()  # per test id, when the task lists them


@dataclass(frozen=True)
class ValidationResult:
    task_id: str
    ok: bool
    before: Grade
    after: Grade | None
    problems: tuple[str, ...]
    # Prompt tokens at each oracle step's generation, and the final context (last prompt plus
    # the last action), with the default model's tokenizer; () / None when not measured.
    context_per_step: tuple[int, ...] = ()
    final_context_tokens: int | None = None
    context_note: str | None = None  # why the context was not measured


# --------------------------------------------------------------------------- discovery


def suites_root() -> Path:
    """Where the bundled suites live: the wheel's copy if installed, else the checkout's tasks/."""
    packaged = Path(__file__).parent / "_tasks"
    if packaged.is_dir():
        return packaged
    return Path(__file__).parent.parent / "tasks"


def bundled_suite_names() -> tuple[str, ...]:
    root = suites_root()
    if not root.is_dir():
        return ()
    # tasks/replay/ holds replay datasets (JSONL files), not task directories
    return tuple(sorted(
        p.name for p in root.iterdir()
        if p.is_dir() and _is_visible(p) and any(d.is_dir() for d in p.iterdir())
    ))


def load_suite(name_or_path: str) -> Suite:
    """Load a bundled suite by bare name ("smoke") or any suite directory by path."""
    path = _suite_path(name_or_path)
    if (path / TASK_FILE).is_file():
        raise SuiteError(
            f"{_show(path)}: this is a task directory, not a suite (give its parent directory"
            f" and select the task by id '{path.resolve().name}')"
        )
    task_dirs = sorted(p for p in path.iterdir() if p.is_dir() and _is_visible(p))
    if not task_dirs:
        raise SuiteError(
            f"{_show(path)}: suite has no tasks (add task directories, each with a {TASK_FILE})"
        )
    description, strict = _load_suite_file(path)
    tasks = sorted((_load_task(d, strict) for d in task_dirs), key=lambda t: t.id)
    return Suite(
        name=path.resolve().name, path=path, tasks=tuple(tasks),
        description=description, strict=strict,
    )


def _load_suite_file(path: Path) -> tuple[str, bool]:
    """Optional suite.yaml: {description: TEXT, strict: BOOL}."""
    file = path / SUITE_FILE
    if not file.is_file():
        return "", False
    where = _show(file)
    data = _read_yaml(file)
    if data is None:
        return "", False
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: expected a mapping with keys {', '.join(_SUITE_KEYS)}")
    for key in data:
        if key not in _SUITE_KEYS:
            raise SuiteError(
                f"{where}: key {key!r} is unknown (allowed keys: {', '.join(_SUITE_KEYS)})"
            )
    strict = data.get("strict", False)
    if not isinstance(strict, bool):
        raise SuiteError(f"{where}: key 'strict' must be true or false, got {strict!r}")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise SuiteError(f"{where}: key 'description' must be a string")
    return description.strip(), strict


def select_tasks(suite: Suite, task_ids: Sequence[str] | None) -> tuple[Task, ...]:
    """The named tasks in the order given, or every task when task_ids is None or empty."""
    if not task_ids:
        return suite.tasks
    by_id = {t.id: t for t in suite.tasks}
    unknown = [i for i in task_ids if i not in by_id]
    if unknown:
        raise SuiteError(
            f"suite '{suite.name}' ({_show(suite.path)}) has no task"
            f" {', '.join(map(repr, unknown))}"
            f" (known tasks: {', '.join(by_id)})"
        )
    # A task named twice still runs once: repeats are what attempts are for.
    return tuple(by_id[i] for i in dict.fromkeys(task_ids))


def _suite_path(name_or_path: str) -> Path:
    bundled = bundled_suite_names()
    known = f"bundled suites: {', '.join(bundled) or 'none'}"
    is_bare_name = name_or_path not in ("", ".", "..") and not any(
        sep in name_or_path for sep in ("/", "\\")
    )
    if is_bare_name and name_or_path in bundled:
        return suites_root() / name_or_path
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        return path
    if is_bare_name:
        raise SuiteError(
            f"unknown suite '{name_or_path}' (use one of the {known}, or give a suite directory)"
        )
    raise SuiteError(
        f"{name_or_path}: not a suite directory (give a directory of task"
        f" directories, or one of the {known})"
    )


def _is_visible(path: Path) -> bool:
    # Skip editor/VCS litter and caches (".git", "__pycache__") that can sit beside tasks.
    return not path.name.startswith((".", "_"))


def _show(path: Path) -> str:
    """A path as a user would type it: relative to the working directory when under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


# --------------------------------------------------------------------------- task.yaml


def _load_task(task_dir: Path, strict: bool = False) -> Task:
    file = task_dir / TASK_FILE
    where = _show(file)
    if not file.is_file():
        raise SuiteError(
            f"{where}: file is missing (every task directory needs a {TASK_FILE};"
            " move other directories out of the suite)"
        )
    data = _read_yaml(file)
    if not isinstance(data, dict):
        raise SuiteError(
            f"{where}: expected a mapping of keys ({', '.join(_REQUIRED_KEYS)}),"
            f" got {_type_name(data)}"
        )

    allowed = (*_REQUIRED_KEYS, *_OPTIONAL_KEYS)
    for key in data:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SuiteError(
                f"{where}: key {key!r} is unknown ({hint}allowed keys: {', '.join(allowed)})"
            )
    for key, what in _REQUIRED_KEYS.items():
        if key not in data:
            raise SuiteError(f"{where}: key '{key}' is missing (add {what})")
        _require_text(data[key], where, key)

    if data["id"] != task_dir.name:
        raise SuiteError(
            f"{where}: key 'id' is {data['id']!r} but the directory is {task_dir.name!r}"
            " (make them equal)"
        )

    repo_dir = task_dir / REPO_DIR
    hidden_dir = task_dir / HIDDEN_TESTS_DIR
    needed = (
        (repo_dir, "the repository the agent starts from"),
        (hidden_dir, "the tests that grade it, copied in after submit"),
    )
    for sub, what in needed:
        if not sub.is_dir():
            raise SuiteError(
                f"{where}: directory {_show(sub)}/ is missing (add {sub.name}/ with {what})"
            )

    tags = _parse_tags(data.get("tags"), where)
    tier = _parse_tier(data.get("tier"), where)
    fail_to_pass = _parse_test_ids(data.get("fail_to_pass"), where, "fail_to_pass")
    pass_to_pass = _parse_test_ids(data.get("pass_to_pass"), where, "pass_to_pass")
    both = set(fail_to_pass) & set(pass_to_pass)
    if both:
        raise SuiteError(
            f"{where}: test {sorted(both)[0]!r} is in both 'fail_to_pass' and 'pass_to_pass'"
            " (a test either fails before the fix or passes before it)"
        )
    if pass_to_pass and not fail_to_pass:
        raise SuiteError(
            f"{where}: key 'pass_to_pass' is given without 'fail_to_pass' (list the tests"
            " the fix must make pass)"
        )
    if strict:
        suite_file = f"{_show(task_dir.parent / SUITE_FILE)} says strict: true"
        if tier is None:
            raise SuiteError(
                f"{where}: key 'tier' is missing ({suite_file}; add tier: easy|medium|hard)"
            )
        if not any(t in TASK_KINDS for t in tags):
            raise SuiteError(
                f"{where}: key 'tags' names no task kind ({suite_file}; add one of"
                f" {', '.join(TASK_KINDS)})"
            )
        if not fail_to_pass:
            raise SuiteError(
                f"{where}: key 'fail_to_pass' is missing ({suite_file}; list the hidden"
                " test ids the fix must make pass)"
            )

    return Task(
        id=data["id"],
        title=data["title"].strip(),
        issue=data["issue"].strip(),
        test_command=data["test_command"].strip(),
        hidden_test_command=data["hidden_test_command"].strip(),
        limits=_parse_limits(data.get("limits"), where),
        tags=tags,
        dir=task_dir,
        repo_dir=repo_dir,
        hidden_tests_dir=hidden_dir,
        tier=tier,
        fail_to_pass=fail_to_pass,
        pass_to_pass=pass_to_pass,
    )


def _parse_tier(raw: object, where: str) -> str | None:
    if raw is None:
        return None
    if raw not in TIERS:
        raise SuiteError(f"{where}: key 'tier' must be one of {', '.join(TIERS)}, got {raw!r}")
    return str(raw)


def _parse_test_ids(raw: object, where: str, key: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise SuiteError(
            f"{where}: key '{key}' must be a non-empty list of unittest ids"
            f" (e.g. [tests_hidden.test_mod.TestCase.test_name]), got {raw!r}"
        )
    for item in raw:
        if not isinstance(item, str) or not _TEST_ID.match(item):
            raise SuiteError(
                f"{where}: key '{key}' has {item!r}, not a unittest id"
                " (write module.Class.test_method, e.g. tests_hidden.test_mod.TestCase.test_x)"
            )
    if len(set(raw)) != len(raw):
        dup = next(i for i in raw if raw.count(i) > 1)
        raise SuiteError(f"{where}: key '{key}' lists {dup!r} twice (list each test once)")
    return tuple(raw)


def _parse_limits(raw: object, where: str) -> TaskLimits:
    if raw is None:
        return TaskLimits(max_steps=None, wall_s=None, command_timeout_s=DEFAULT_COMMAND_TIMEOUT_S)
    if not isinstance(raw, dict):
        raise SuiteError(
            f"{where}: key 'limits' must be a mapping with keys {', '.join(_LIMIT_KEYS)},"
            f" got {_type_name(raw)}"
        )
    for key in raw:
        if key not in _LIMIT_KEYS:
            raise SuiteError(
                f"{where}: key 'limits.{key}' is unknown (allowed: {', '.join(_LIMIT_KEYS)})"
            )
    max_steps = raw.get("max_steps")
    # bool is an int subclass; "max_steps: yes" is a typo, not a step count.
    if max_steps is not None and (
        not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1
    ):
        raise SuiteError(
            f"{where}: key 'limits.max_steps' must be a positive integer, got {max_steps!r}"
        )
    timeout = _positive_seconds(raw.get("command_timeout_s"), where, "limits.command_timeout_s")
    test_timeout = _positive_seconds(raw.get("test_timeout_s"), where, "limits.test_timeout_s")
    return TaskLimits(
        max_steps=max_steps,
        wall_s=_positive_seconds(raw.get("wall_s"), where, "limits.wall_s"),
        command_timeout_s=DEFAULT_COMMAND_TIMEOUT_S if timeout is None else timeout,
        test_timeout_s=DEFAULT_TEST_TIMEOUT_S if test_timeout is None else test_timeout,
    )


def _positive_seconds(value: object, where: str, key: str) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value <= 0
    ):
        raise SuiteError(
            f"{where}: key '{key}' must be a positive number of seconds, got {value!r}"
        )
    return float(value)


def _parse_tags(raw: object, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(t, str) and t for t in raw):
        raise SuiteError(
            f"{where}: key 'tags' must be a list of non-empty strings (e.g. [smoke, python]),"
            f" got {raw!r}"
        )
    return tuple(raw)


def _require_text(value: object, where: str, key: str) -> None:
    if not isinstance(value, str):
        raise SuiteError(
            f"{where}: key '{key}' must be a string, got {_type_name(value)} {value!r}"
            " (quote it if YAML read it as another type)"
        )
    if not value.strip():
        raise SuiteError(f"{where}: key '{key}' is empty (give it a value)")


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", type(None): "nothing"}.get(
        type(value), type(value).__name__
    )


class _StrictLoader(NoAliasLoader):
    """Also rejects duplicate keys, which PyYAML would silently overwrite."""


def _construct_unique_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict:
    seen: set[object] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node)


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping
)


def _read_yaml(file: Path) -> object:
    where = _show(file)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(
            f"{where}: cannot read file ({exc}); check that it exists and is UTF-8 text"
        ) from None
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        at = f" line {mark.line + 1}, column {mark.column + 1}:" if mark is not None else ""
        raise SuiteError(
            f"{where}:{at} YAML syntax error: {problem} (fix the YAML; quote strings that"
            " contain ': ' or start with a special character)"
        ) from None


# --------------------------------------------------------------------------- oracle


def load_oracle(task: Task) -> tuple[OracleStep, ...]:
    """The task's reference solution: <task dir>/oracle.yaml, a list of {tool, args}."""
    file = task.dir / ORACLE_FILE
    where = _show(file)
    if not file.is_file():
        raise SuiteError(
            f"{where}: file is missing (add a list of steps like"
            " '- {tool: submit, args: {}}' that solves the task)"
        )
    data = _read_yaml(file)
    if not isinstance(data, list) or not data:
        raise SuiteError(
            f"{where}: expected a non-empty list of steps like '- {{tool: NAME, args: {{...}}}}',"
            f" got {_type_name(data)}"
        )
    tool_names = [spec.name for spec in ALL_TOOL_SPECS]
    steps = []
    for n, item in enumerate(data, start=1):
        if not isinstance(item, dict) or set(item) - {"tool", "args"} or "tool" not in item:
            raise SuiteError(
                f"{where}: step {n} must be a mapping with keys 'tool' and 'args', got {item!r}"
            )
        tool, args = item["tool"], item.get("args", {})
        if tool not in tool_names:
            raise SuiteError(
                f"{where}: step {n} key 'tool' is {tool!r}, not a tool"
                f" (use one of: {', '.join(tool_names)})"
            )
        if args is None:
            args = {}
        if not isinstance(args, dict) or not all(isinstance(k, str) for k in args):
            raise SuiteError(
                f"{where}: step {n} key 'args' must be a mapping of argument names to values,"
                f" got {args!r}"
            )
        steps.append(OracleStep(tool=tool, args=dict(args)))
    return tuple(steps)


# --------------------------------------------------------------------------- grading

# Runs each test id in one process, in order, each under a SIGALRM limit, and prints one
# marker line per id as soon as it is known (so a killed run still reports what finished).
_ID_RUNNER = """
import json, signal, sys, unittest
IDS, LIMIT = json.loads(sys.argv[1]), float(sys.argv[2])
class TestTimeout(Exception):
    pass
def _alarm(signum, frame):
    raise TestTimeout("test ran over %g s" % LIMIT)
signal.signal(signal.SIGALRM, _alarm)
if "" not in sys.path:
    sys.path.insert(0, "")
for tid in IDS:
    status, detail = "pass", ""
    try:
        suite = unittest.defaultTestLoader.loadTestsFromName(tid)
        result = unittest.TestResult()
        result.buffer = True
        signal.setitimer(signal.ITIMER_REAL, LIMIT)
        try:
            suite.run(result)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        bad = result.errors + result.failures + [(t, "unexpected success") for t in
                                                  result.unexpectedSuccesses]
        load_error = next((x for t, x in bad if "_FailedTest" in type(t).__name__), None)
        if result.testsRun == 0:
            status, detail = "missing", "no test with this id"
        elif load_error is not None:
            # absent id -> missing; an import error in the code under test -> error
            last = load_error.strip().splitlines()[-1]
            absent = any("'%s'" % part in last for part in tid.split(".")) and (
                "AttributeError" in last or "ModuleNotFoundError" in last)
            status, detail = ("missing" if absent else "error"), load_error
        elif any("TestTimeout" in text for _, text in bad):
            status, detail = "timeout", "test ran over %g s" % LIMIT
        elif result.errors:
            status, detail = "error", result.errors[0][1]
        elif bad:
            status, detail = "fail", bad[0][1]
    except TestTimeout:
        status, detail = "timeout", "test ran over %g s" % LIMIT
    except BaseException as exc:
        status, detail = "missing", "%s: %s" % (type(exc).__name__, exc)
    lines = [x for x in detail.strip().splitlines() if x.strip()]
    detail = " | ".join(lines[-3:])[-400:]
    print("@@edgeagent-test " + json.dumps({"id": tid, "status": status, "detail": detail}),
          flush=True)
"""
_MARK = "@@edgeagent-test "


def run_test_ids(
    ids: Sequence[str], workspace: Workspace, limits: ProcessLimits, test_timeout_s: float
) -> tuple[tuple[TestOutcome, ...], CommandResult]:
    """Each unittest id's outcome in the workspace; ids not reached before a kill: 'timeout'."""
    command = (
        f"python -c {shlex.quote(_ID_RUNNER)} {shlex.quote(json.dumps(list(ids)))}"
        f" {test_timeout_s:g}"
    )
    result = run_command(command, workspace.root, limits)
    seen: dict[str, TestOutcome] = {}
    for line in result.output.splitlines():
        if line.startswith(_MARK):
            try:
                item = json.loads(line[len(_MARK):])
                seen[item["id"]] = TestOutcome(item["id"], item["status"], item["detail"])
            except (ValueError, KeyError, TypeError):
                continue
    if result.timed_out:
        why = f"not reached: the test run was killed after {limits.timeout_s:g} s"
    else:
        why = f"no result (exit {result.exit_code}): {_tail(result.output, 200)}"
    missing_status = "timeout" if result.timed_out else "error"
    outcomes = tuple(seen.get(i) or TestOutcome(i, missing_status, why) for i in ids)
    return outcomes, result


def grade(task: Task, workspace: Workspace, limits: ProcessLimits) -> Grade:
    """Copy the hidden tests into the workspace and run them.

    With fail_to_pass/pass_to_pass lists (SWE-bench style) resolved means every listed test
    passes; without them, the hidden test command exits 0. Meant to run once, after the
    agent submitted: the hidden tests stay in the workspace.
    """
    workspace.add_files(task.hidden_tests_dir)
    if task.fail_to_pass:
        ids = (*task.pass_to_pass, *task.fail_to_pass)
        outcomes, result = run_test_ids(ids, workspace, limits, task.limits.test_timeout_s)
        failed = [o for o in outcomes if o.status != "pass"]
        summary = "\n".join(
            [f"{o.status.upper():<8} {o.id}" + (f": {o.detail}" if o.detail else "")
             for o in outcomes]
        )
        return Grade(
            resolved=not failed,
            exit_code=result.exit_code,
            output=f"{len(outcomes) - len(failed)}/{len(outcomes)} listed tests pass\n{summary}",
            wall_ms=result.wall_ms,
            timed_out=result.timed_out or any(o.status == "timeout" for o in outcomes),
            tests=outcomes,
        )
    result = run_command(task.hidden_test_command, workspace.root, limits)
    return Grade(
        resolved=result.exit_code == 0 and not result.timed_out,
        exit_code=result.exit_code,
        output=result.output,
        wall_ms=result.wall_ms,
        timed_out=result.timed_out,
    )


class ContextProbe:
    """What validate_task tells as it replays an oracle (see edgeagent.task_context)."""

    def start(self, task: Task, repo_files: Sequence[str]) -> None: ...

    def step(self, tool: str, args: dict[str, Any], result: ToolResult) -> int | None:
        """The prompt tokens at this step's generation, before its observation is added."""
        return None

    def final(self) -> int | None:
        return None

    note: str | None = "no tokenizer given"


def validate_task(
    task: Task, limits: ProcessLimits, context: ContextProbe | None = None
) -> ValidationResult:
    """Prove a task is fair: hidden tests fail on the fresh repo and pass after the oracle.

    With lists: every fail_to_pass test fails before and passes after, every pass_to_pass
    test passes both times, and the whole hidden test command passes after within the
    command timeout. "Before" and the oracle replay use separate fresh workspaces, so the
    oracle never runs with the hidden tests present (as the agent never does).
    """
    problems: list[str] = []
    if not task.repo_dir.is_dir():
        problems.append(
            f"directory {REPO_DIR}/ is missing (add the repository the agent starts from)"
        )
        empty = Grade(False, None, "", 0.0, False)
        return ValidationResult(task.id, False, empty, None, tuple(problems))
    with Workspace.create(task.repo_dir) as fresh:
        before = grade(task, fresh, limits)
    problems += _before_problems(task, before)

    try:
        steps = load_oracle(task)
    except SuiteError as exc:
        problems.append(str(exc))
        return ValidationResult(task.id, False, before, None, tuple(problems))

    if steps[-1].tool != "submit":
        problems.append(f"oracle's last step is {steps[-1].tool!r}, not 'submit' (end with submit)")
    probe = context or ContextProbe()
    per_step: list[int] = []
    after: Grade | None = None
    with Workspace.create(task.repo_dir) as work:
        retriever = _oracle_retriever(steps, work.root)
        toolbox = Toolbox(work, task.test_command, limits, retriever=retriever)
        probe.start(task, toolbox.repo_files(named_in=task.issue))
        replayed_ok = True
        for n, step in enumerate(steps, start=1):
            result = toolbox.call(step.tool, step.args)
            tokens = probe.step(step.tool, step.args, result)
            if tokens is not None:
                per_step.append(tokens)
            if result.error:
                problems.append(f"oracle step {n} ({step.tool}) failed: {_tail(result.output)}")
                replayed_ok = False
                break
            if step.tool in ("run", "run_tests") and result.exit_code is None:
                problems.append(
                    f"oracle step {n} ({step.tool}) timed out after {limits.timeout_s:g} s"
                    " (make the tests faster or raise limits.command_timeout_s)"
                )
            if result.submitted and n < len(steps):
                problems.append(
                    f"oracle step {n} submits before the last step (move submit to the end)"
                )
                replayed_ok = False
                break
        if retriever is not None:
            retriever.close()
        if replayed_ok:
            after = grade(task, work, limits)
            problems += _after_problems(task, after, work, limits)
    final = probe.final() if per_step else None
    return ValidationResult(
        task_id=task.id, ok=not problems, before=before, after=after, problems=tuple(problems),
        context_per_step=tuple(per_step), final_context_tokens=final,
        context_note=None if final is not None else probe.note,
    )


def _oracle_retriever(steps: Sequence[OracleStep], root: Path) -> object | None:
    """A retriever for an oracle that searches, when the retrieval extra is installed (else
    its search_code step fails with the reason)."""
    if not any(s.tool == "search_code" for s in steps):
        return None
    from edgeagent.retrieval import unavailable_reason

    if unavailable_reason() is not None:
        return None
    from edgeagent.retrieval.service import RetrievalService

    return RetrievalService().retriever(root)


def _before_problems(task: Task, before: Grade) -> list[str]:
    if task.fail_to_pass:
        problems = []
        by_id = {o.id: o for o in before.tests}
        passing = [i for i in task.fail_to_pass if by_id[i].status == "pass"]
        if passing:
            problems.append(
                f"fail_to_pass test {passing[0]} passes before any fix"
                f"{f' (and {len(passing) - 1} more)' if len(passing) > 1 else ''}"
                " (it must fail on the original repo: check the test or repo/)"
            )
        missing = [o for o in before.tests if o.status == "missing"]
        if missing:
            problems.append(
                f"test {missing[0].id} cannot be loaded before the fix: {missing[0].detail}"
                " (FAIL_TO_PASS tests must fail by assertion or error, not be absent; check"
                " the id)"
            )
        for o in before.tests:
            if o.id in task.pass_to_pass and o.status != "pass":
                problems.append(
                    f"pass_to_pass test {o.id} does not pass before the fix ({o.status}:"
                    f" {o.detail})"
                )
        if before.timed_out and not any(o.status == "timeout" for o in before.tests):
            problems.append("hidden tests timed out before any fix")
        return problems
    if before.resolved:
        return [
            "hidden tests pass before any fix (the task is already solved: check repo/ and"
            " hidden_test_command)"
        ]
    if before.timed_out:
        return ["hidden tests timed out before any fix (they should fail quickly)"]
    if before.exit_code in (126, 127):
        return [
            f"hidden_test_command could not start (exit {before.exit_code}): {_tail(before.output)}"
        ]
    return []


def _after_problems(
    task: Task, after: Grade, work: Workspace, limits: ProcessLimits
) -> list[str]:
    problems = []
    if task.fail_to_pass:
        for o in after.tests:
            if o.status == "timeout":
                problems.append(
                    f"test {o.id} times out after the oracle ({o.detail}; make it faster or"
                    " raise limits.test_timeout_s)"
                )
            elif o.status != "pass":
                problems.append(
                    f"test {o.id} does not pass after the oracle ({o.status}: {o.detail})"
                )
        # The whole hidden command must pass too: no unlisted hidden test may be broken.
        full = run_command(task.hidden_test_command, work.root, limits)
        if full.timed_out:
            problems.append(
                f"hidden_test_command timed out after {limits.timeout_s:g} s after the oracle"
                " (the tests must finish within limits.command_timeout_s)"
            )
        elif full.exit_code != 0:
            problems.append(
                f"hidden_test_command fails after the oracle (exit {full.exit_code}):"
                f" {_tail(full.output)}"
            )
        return problems
    if not after.resolved:
        problems.append(
            "hidden tests fail after the oracle"
            f" (exit {after.exit_code}{', timed out' if after.timed_out else ''}):"
            f" {_tail(after.output)}"
        )
    return problems


def _tail(output: str, limit: int = 300) -> str:
    """The end of a command's output on one line: where test failures and errors are."""
    flat = " ".join(output.split())
    return flat if len(flat) <= limit else "..." + flat[-limit:]
