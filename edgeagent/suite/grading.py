"""Grading: put a task's hidden tests into a clean place in the workspace and run them, by
command or by id.

What the agent left where the hidden tests go (a planted test module, a stale `__pycache__`)
is removed first, and results by id come back through a file descriptor the tests' output
cannot reach, marked with a key held by a runner process (test_runner.py) that imports no code
under test; the tests run in a child of it (test_child.py) that never sees the key. A
workspace can fail the tests but not forge a pass by printing, by writing to every
descriptor or by searching its own memory.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import secrets
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path

from edgeagent.sandbox import CommandResult, ProcessLimits, Workspace, run_command

from . import test_child, test_runner
from .schema import Grade, Task, TestOutcome

_STATUSES = frozenset({"pass", "fail", "error", "timeout", "missing"})
_RESULTS_CAP = 4 << 20  # bytes of result lines read back; one line per id is far less


@functools.cache
def _runner_texts() -> tuple[str, str]:
    # Run as `python -c TEXT`, not by path: the sandbox hides where edgeagent is installed.
    return tuple(Path(m.__file__).read_text(encoding="utf-8") for m in (test_runner, test_child))


def run_test_ids(
    ids: Sequence[str], workspace: Workspace, limits: ProcessLimits, test_timeout_s: float
) -> tuple[tuple[TestOutcome, ...], CommandResult]:
    """Each unittest id's outcome in the workspace; an id without a result line is not a
    pass: 'timeout' when the run was killed, 'error' otherwise."""
    key = secrets.token_hex(16)
    runner_text, child_text = _runner_texts()
    key_read, key_write = os.pipe()
    try:
        # the key and the child's text fit in the pipe's buffer (64 KiB), read at the start
        os.write(key_write, f"{key}\n{child_text}".encode())
        os.close(key_write)
        with tempfile.TemporaryFile() as channel:
            fd = channel.fileno()
            command = (
                f"python -I -B -c {shlex.quote(runner_text)} {fd} {key_read} "
                f"{shlex.quote(json.dumps(list(ids)))} {test_timeout_s:g}"
            )
            result = run_command(command, workspace.root, limits, pass_fds=(fd, key_read))
            channel.seek(0)
            raw = channel.read(_RESULTS_CAP).decode("utf-8", "replace").splitlines()
    finally:
        os.close(key_read)
    lines = [line[len(key) + 1:] for line in raw if line.startswith(key + " ")]
    seen = _outcomes_by_id(lines, set(ids))
    if isinstance(seen, str):
        return tuple(TestOutcome(i, "error", seen) for i in ids), result
    if result.timed_out:
        why = f"not reached: the test run was killed after {limits.timeout_s:g} s"
    else:
        why = f"no result (exit {result.exit_code}): {output_tail(result.output, 200)}"
    missing_status = "timeout" if result.timed_out else "error"
    outcomes = tuple(seen.get(i) or TestOutcome(i, missing_status, why) for i in ids)
    return outcomes, result


def _outcomes_by_id(lines: list[str], wanted: set[str]) -> dict[str, TestOutcome] | str:
    """The first outcome per wanted id from the runner's keyed lines, or why the run is void."""
    seen: dict[str, TestOutcome] = {}
    for line in lines:
        try:
            item = json.loads(line)
            if "void" in item:
                return f"void: {item['void']}"
            tid, status, detail = item["id"], item["status"], str(item["detail"])
        except (ValueError, KeyError, TypeError):
            continue
        if tid in wanted and status in _STATUSES and tid not in seen:
            seen[tid] = TestOutcome(tid, status, detail)
    return seen


def grade(task: Task, workspace: Workspace, limits: ProcessLimits) -> Grade:
    """Put the hidden tests in place and run them.

    With fail_to_pass/pass_to_pass lists (SWE-bench style) resolved means every listed test
    passes; without them, the hidden test command exits 0. Meant to run once, after the
    agent submitted: the hidden tests stay in the workspace.
    """
    workspace.install_hidden_tests(task.hidden_tests_dir, task.repo_dir)
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
    resolved = result.exit_code == 0 and not result.timed_out
    output, outcomes = result.output, ()
    ids = unittest_ids(task.hidden_tests_dir) if "unittest" in task.hidden_test_command else ()
    if resolved and ids:
        # an exit code is forgeable (os._exit(0) at import): every test the hidden files
        # define must also pass by id, through the result channel
        outcomes, _ = run_test_ids(ids, workspace, limits, task.limits.test_timeout_s)
        failed = [o for o in outcomes if o.status != "pass"]
        resolved = not failed
        output += f"\n[by id: {len(ids) - len(failed)}/{len(ids)} hidden tests pass" + (
            f"; {failed[0].status.upper()} {failed[0].id}: {failed[0].detail}]" if failed else "]")
    return Grade(
        resolved=resolved,
        exit_code=result.exit_code,
        output=output,
        wall_ms=result.wall_ms,
        timed_out=result.timed_out,
        tests=outcomes,
    )


def unittest_ids(hidden_dir: Path) -> tuple[str, ...]:
    """The ids of the unittest tests the hidden files define (module.Class.test_method),
    read from their source, not imported: the grader's own list of what must pass."""
    ids: list[str] = []
    for file in sorted(Path(hidden_dir).rglob("test*.py")):
        rel = file.relative_to(hidden_dir).with_suffix("")
        if not all(part.isidentifier() for part in rel.parts):
            continue
        try:
            tree = ast.parse(file.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError, OSError):
            continue
        module = ".".join(rel.parts)
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(
                    ast.unparse(b).endswith("TestCase") for b in node.bases):
                ids += [f"{module}.{node.name}.{f.name}" for f in node.body
                        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and f.name.startswith("test")]
    return tuple(ids)


def output_tail(output: str, limit: int = 300) -> str:
    """The end of a command's output on one line: where test failures and errors are."""
    flat = " ".join(output.split())
    return flat if len(flat) <= limit else "..." + flat[-limit:]
