"""A task described for `edgeagent tasks`: its repository's size, its oracle's length and the
context the oracle grows to (cached per task and tokenizer), and the lookup of SUITE/ID."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import SuiteError
from ..models import models_dir
from ..sandbox import DEFAULT_COMMAND_TIMEOUT_S, SKIP_DIRS, ProcessLimits, Toolbox, Workspace
from .context import (
    ContextEstimate,
    EstimatorFactory,
    load_cached,
    store_cached,
    task_fingerprint,
)
from .load import bundled_suite_names, load_oracle, load_suite, select_tasks
from .schema import Suite, Task


@dataclass(frozen=True)
class TaskSize:
    files: int
    lines: int


def repo_size(task: Task) -> TaskSize:
    """Files and text lines in the task's repo/ (what the agent starts from)."""
    files = lines = 0
    for dirpath, dirnames, filenames in os.walk(task.repo_dir):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
        for name in filenames:
            files += 1
            try:
                data = (Path(dirpath) / name).read_bytes()
            except OSError:
                continue
            if b"\x00" not in data[:8192]:
                lines += data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    return TaskSize(files, lines)


def _oracle_steps(task: Task) -> int | None:
    try:
        return len(load_oracle(task))
    except SuiteError:
        return None


def task_limits(task: Task, *, command_timeout_s: float | None = None,
                out: str | Path | None = None, model: str | Path | None = None
                ) -> ProcessLimits:
    """The one rule for the limits of a task's commands, wherever they run (a live run, its
    grading, a replay re-executing tools, an oracle): the run's timeout, else the task's,
    else the default; and never shown to a command, even where a directory it may read holds
    them: the suite (hidden tests, oracles), the run directories (`out`) and the model files."""
    timeout = command_timeout_s or task.limits.command_timeout_s or DEFAULT_COMMAND_TIMEOUT_S
    hide = (str(task.dir.parent), str(models_dir()))
    if out is not None:
        hide += (str(out),)
    if model and Path(model).suffix == ".gguf":
        hide += (str(Path(model).parent),)
    return ProcessLimits(timeout_s=timeout, hide=hide)


def estimate_context(task: Task, factory: EstimatorFactory) -> ContextEstimate:
    """The oracle's context growth: from the cache, else by replaying the oracle (no grading)."""
    if factory.model_path is None:
        return ContextEstimate(task.id, (), None, factory.note)
    fingerprint = task_fingerprint(task, factory.model_path)
    cached = load_cached(task, fingerprint)
    if cached is not None:
        return cached
    estimator = factory.estimator()
    try:
        steps = load_oracle(task)
    except SuiteError as exc:
        return ContextEstimate(task.id, (), None, str(exc))
    per_step: list[int] = []
    with Workspace.create(task.repo_dir) as work:
        toolbox = Toolbox(work, task.test_command, task_limits(task))
        estimator.start(task, toolbox.repo_files(named_in=task.issue))
        for step in steps:
            tokens = estimator.step(step.tool, step.args, toolbox.call(step.tool, step.args))
            if tokens is not None:
                per_step.append(tokens)
    estimate = ContextEstimate(task.id, tuple(per_step), estimator.final(), estimator.note)
    store_cached(task, fingerprint, estimate)
    return estimate


def task_row(task: Task, factory: EstimatorFactory | None) -> dict:
    size = repo_size(task)
    estimate = estimate_context(task, factory) if factory is not None else None
    return {
        "id": task.id,
        "title": task.title,
        "tier": task.tier,
        "kinds": list(task.kinds),
        "tags": list(task.tags),
        "files": size.files,
        "lines": size.lines,
        "oracle_steps": _oracle_steps(task),
        "est_context_tokens": estimate.final_tokens if estimate else None,
        "context_per_step": list(estimate.per_step) if estimate else [],
        "context_note": (estimate.note if estimate else "not estimated (--no-context)")
        if not estimate or estimate.final_tokens is None else None,
        "n_fail_to_pass": len(task.fail_to_pass),
        "n_pass_to_pass": len(task.pass_to_pass),
    }


def find_task(spec: str) -> tuple[Suite, Task]:
    """SUITE/ID (SUITE a bundled name or a directory), or a bare ID in any bundled suite."""
    suite_part, sep, task_id = spec.rpartition("/")
    if sep:
        suite = load_suite(suite_part)
        return suite, select_tasks(suite, [task_id])[0]
    found = []
    for name in bundled_suite_names():
        suite = load_suite(name)
        found += [(suite, t) for t in suite.tasks if t.id == spec]
    if len(found) == 1:
        return found[0]
    if found:
        where = ", ".join(f"{s.name}/{t.id}" for s, t in found)
        raise SuiteError(f"task id {spec!r} is in several suites ({where}); give SUITE/{spec}")
    raise SuiteError(
        f"no bundled suite has a task {spec!r} (suites: {', '.join(bundled_suite_names())};"
        " give SUITE/ID, or list ids with `edgeagent tasks list SUITE`)"
    )
