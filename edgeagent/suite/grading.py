"""Grading: copy a task's hidden tests into the workspace and run them, by command or by id."""

from __future__ import annotations

import functools
import json
import shlex
from collections.abc import Sequence
from pathlib import Path

from edgeagent.sandbox.process import CommandResult, ProcessLimits, run_command
from edgeagent.sandbox.workspace import Workspace

from . import test_runner
from .schema import Grade, Task, TestOutcome


@functools.cache
def _runner_text() -> str:
    # Run as `python -c TEXT`, not by path: the sandbox may mask where edgeagent is installed,
    # and `-c` keeps the workspace, not this package's directory, first on sys.path.
    return Path(test_runner.__file__).read_text(encoding="utf-8")


def run_test_ids(
    ids: Sequence[str], workspace: Workspace, limits: ProcessLimits, test_timeout_s: float
) -> tuple[tuple[TestOutcome, ...], CommandResult]:
    """Each unittest id's outcome in the workspace; ids not reached before a kill: 'timeout'."""
    command = (
        f"python -c {shlex.quote(_runner_text())} {shlex.quote(json.dumps(list(ids)))}"
        f" {test_timeout_s:g}"
    )
    result = run_command(command, workspace.root, limits)
    seen: dict[str, TestOutcome] = {}
    for line in result.output.splitlines():
        if line.startswith(test_runner.MARK):
            try:
                item = json.loads(line[len(test_runner.MARK):])
                seen[item["id"]] = TestOutcome(item["id"], item["status"], item["detail"])
            except (ValueError, KeyError, TypeError):
                continue
    if result.timed_out:
        why = f"not reached: the test run was killed after {limits.timeout_s:g} s"
    else:
        why = f"no result (exit {result.exit_code}): {output_tail(result.output, 200)}"
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


def output_tail(output: str, limit: int = 300) -> str:
    """The end of a command's output on one line: where test failures and errors are."""
    flat = " ".join(output.split())
    return flat if len(flat) <= limit else "..." + flat[-limit:]
