"""Suites from disk: bundled suites, suite.yaml, task.yaml and oracle.yaml into records.

Every problem a user can cause in these files ends in one SuiteError naming the file, the
key and the fix.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Sequence
from pathlib import Path

import yaml

from edgeagent.errors import SuiteError
from edgeagent.safe_yaml import NoAliasLoader
from edgeagent.sandbox import ALL_TOOL_SPECS, DEFAULT_COMMAND_TIMEOUT_S

from .schema import (
    DEFAULT_TEST_TIMEOUT_S,
    HIDDEN_TESTS_DIR,
    ORACLE_FILE,
    REPO_DIR,
    SUITE_FILE,
    TASK_FILE,
    TASK_KINDS,
    TIERS,
    OracleStep,
    Suite,
    Task,
    TaskLimits,
)

_REQUIRED_KEYS = {
    "id": "the task id, equal to the task's directory name",
    "title": "a one-line title",
    "issue": "the issue text the agent should solve",
    "test_command": "the command that runs the visible tests",
    "hidden_test_command": "the command that runs the hidden tests",
}
_OPTIONAL_KEYS = ("limits", "tags", "tier", "fail_to_pass", "pass_to_pass")
_LIMIT_KEYS = ("max_steps", "wall_s", "command_timeout_s", "test_timeout_s")
_SUITE_KEYS = ("description", "strict")
# Not a suite: the checkout's tasks/generators/ (scripts that write large task repositories).
GENERATORS_DIR = "generators"
# A unittest id: dotted module path, optional class, test method (tests_hidden.test_x.T.test_y).
_TEST_ID = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


# --------------------------------------------------------------------------- discovery


def suites_root() -> Path:
    """Where the bundled suites live: the wheel's copy if installed, else the checkout's tasks/."""
    package = Path(__file__).parent.parent  # edgeagent/
    packaged = package / "_tasks"
    if packaged.is_dir():
        return packaged
    return package.parent / "tasks"


def bundled_suite_names() -> tuple[str, ...]:
    root = suites_root()
    if not root.is_dir():
        return ()
    # tasks/replay/ holds replay datasets (JSONL files), not task directories; the checkout's
    # tasks/generators/ holds the code that writes some task repositories (not in the wheel)
    return tuple(sorted(
        p.name for p in root.iterdir()
        if p.is_dir() and _is_visible(p) and p.name != GENERATORS_DIR
        and any(d.is_dir() for d in p.iterdir())
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
    data = _read_task_keys(file, where)
    if data["id"] != task_dir.name:
        raise SuiteError(
            f"{where}: key 'id' is {data['id']!r} but the directory is {task_dir.name!r}"
            " (make them equal)"
        )
    repo_dir, hidden_dir = _task_dirs(task_dir, where)
    tags = _parse_tags(data.get("tags"), where)
    tier = _parse_tier(data.get("tier"), where)
    fail_to_pass, pass_to_pass = _parse_test_lists(data, where)
    if strict:
        _check_strict(task_dir, where, tier, tags, fail_to_pass)
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


def _read_task_keys(file: Path, where: str) -> dict:
    """task.yaml as a mapping with only known keys and every required one a non-empty string."""
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
    return data


def _task_dirs(task_dir: Path, where: str) -> tuple[Path, Path]:
    """The task's repository and hidden-test directories, both of which must exist."""
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
    return repo_dir, hidden_dir


def _parse_test_lists(data: dict, where: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """fail_to_pass and pass_to_pass: disjoint, and pass_to_pass only beside fail_to_pass."""
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
    return fail_to_pass, pass_to_pass


def _check_strict(
    task_dir: Path, where: str, tier: str | None, tags: tuple[str, ...],
    fail_to_pass: tuple[str, ...],
) -> None:
    """What a strict suite (suite.yaml strict: true) also requires of every task."""
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
