"""Oracle validation: prove a task is fair by grading its fresh repo and its oracle's result."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgeagent.errors import SuiteError
from edgeagent.sandbox import ProcessLimits, Toolbox, ToolResult, Workspace, run_command

from .grading import grade, output_tail
from .load import load_oracle
from .schema import REPO_DIR, Grade, OracleStep, Task, ValidationResult
from .stated_fix import fix_stated_in_issue


class ContextProbe:
    """What validate_task tells as it replays an oracle (see edgeagent.suite.context)."""

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

    stated = fix_stated_in_issue(task, steps)
    if stated is not None:
        problems.append(stated)
    if steps[-1].tool != "submit":
        problems.append(f"oracle's last step is {steps[-1].tool!r}, not 'submit' (end with submit)")
    probe = context or ContextProbe()
    after: Grade | None = None
    with Workspace.create(task.repo_dir) as work:
        retriever = _oracle_retriever(steps, work.root)
        toolbox = Toolbox(work, task.test_command, limits, retriever=retriever)
        probe.start(task, toolbox.repo_files(named_in=task.issue))
        replayed_ok, per_step = _replay_oracle(steps, toolbox, probe, limits, problems)
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


def _replay_oracle(
    steps: Sequence[OracleStep], toolbox: Toolbox, probe: ContextProbe, limits: ProcessLimits,
    problems: list[str],
) -> tuple[bool, list[int]]:
    """Call the oracle's steps in order, adding to problems what went wrong: (whether the
    replay reached its end, the prompt tokens the probe gave per step)."""
    per_step: list[int] = []
    for n, step in enumerate(steps, start=1):
        result = toolbox.call(step.tool, step.args)
        tokens = probe.step(step.tool, step.args, result)
        if tokens is not None:
            per_step.append(tokens)
        if result.error:
            problems.append(
                f"oracle step {n} ({step.tool}) failed: {output_tail(result.output)}"
            )
            return False, per_step
        if step.tool in ("run", "run_tests") and result.exit_code is None:
            problems.append(
                f"oracle step {n} ({step.tool}) timed out after {limits.timeout_s:g} s"
                " (make the tests faster or raise limits.command_timeout_s)"
            )
        if result.submitted and n < len(steps):
            problems.append(
                f"oracle step {n} submits before the last step (move submit to the end)"
            )
            return False, per_step
    return True, per_step


def _oracle_retriever(steps: Sequence[OracleStep], root: Path) -> object | None:
    """A retriever for an oracle that searches, when the retrieval extra is installed (else
    its search_code step fails with the reason)."""
    if not any(s.tool == "search_code" for s in steps):
        return None
    from edgeagent.retrieval import unavailable_reason

    if unavailable_reason() is not None:
        return None
    from edgeagent.retrieval import RetrievalService

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
            f"hidden_test_command could not start (exit {before.exit_code}):"
            f" {output_tail(before.output)}"
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
                f" {output_tail(full.output)}"
            )
        return problems
    if not after.resolved:
        problems.append(
            "hidden tests fail after the oracle"
            f" (exit {after.exit_code}{', timed out' if after.timed_out else ''}):"
            f" {output_tail(after.output)}"
        )
    return problems
