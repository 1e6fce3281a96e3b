"""A live run: check the tasks, load the engine, open the session (store and meter), then for
each task run the agent loop in a fresh workspace, grade it with the hidden tests and record
it."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent.loop import AgentLimits, LoopResult, run_agent
from ..agent.native import resolve_tool_format
from ..config import (
    DEFAULT_WALL_S,
    RunConfig,
    effective_max_steps,
)
from ..engine.base import Engine
from ..engine.build import EngineFactory, build_engine
from ..errors import StoreError, SuiteError
from ..events import EventSink, RunStarted, StepRecord, TaskRecord
from ..harness import (
    EXTERNAL_AGENTS,
    AgentContext,
    agent_provenance,
    check_agent,
    open_agents,
    run_external,
    run_single_shot,
)
from ..meter.attribution import sum_joules
from ..meter.host import reset_peak_rss
from ..models import models_dir
from ..results.resume import plan_resume
from ..results.store import make_run_dir
from ..sandbox.process import ProcessLimits, run_command
from ..sandbox.tools import Toolbox
from ..sandbox.workspace import Workspace
from ..suite import DEFAULT_COMMAND_TIMEOUT_S, Grade, Task, grade, load_suite, select_tasks
from .session import (
    RunSession,
    StepCollector,
    build_provenance,
    check_out_writable,
    closing_on_error,
    device_provenance,
    task_costs,
)

# exit codes of a shell that could not start the command at all
_CANNOT_RUN = {126, 127}


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    status: str
    tasks: tuple[TaskRecord, ...]


def _process_limits(task: Task, config: RunConfig) -> ProcessLimits:
    timeout = config.command_timeout_s or task.limits.command_timeout_s or DEFAULT_COMMAND_TIMEOUT_S
    # never shown to a command, even where a directory it may read holds them: the suite
    # (hidden tests, oracles), the run directories, the model files
    hide = (str(task.dir.parent), str(config.out), str(models_dir()))
    if config.model and Path(config.model).suffix == ".gguf":
        hide += (str(Path(config.model).parent),)
    return ProcessLimits(timeout_s=timeout, hide=hide)


def preflight(tasks: Sequence[Task], config: RunConfig) -> None:
    """Fail before loading a model when a task's visible tests cannot even start."""
    for task in tasks:
        with Workspace.create(task.repo_dir) as ws:
            result = run_command(task.test_command, ws.root, _process_limits(task, config))
        if result.exit_code in _CANNOT_RUN or result.timed_out:
            why = "timed out" if result.timed_out else f"exit code {result.exit_code}"
            last = result.output.strip().splitlines()[-1:] or [""]
            raise SuiteError(
                f"{task.dir / 'task.yaml'}: test_command `{task.test_command}` cannot run "
                f"({why}: {last[0][:200]}); fix the command or install what it needs"
            )


def _task_record(
    task: Task, attempt: int, loop: LoopResult, graded: Grade | None, steps: list[StepRecord],
    wall_ms: float, error: str | None,
) -> TaskRecord:
    costs = task_costs(steps)
    energy = costs["energy_j"]
    if error is not None:
        outcome = "error"
    else:
        outcome = "resolved" if graded is not None and graded.resolved else "unresolved"
    return TaskRecord(
        task_id=task.id,
        attempt=attempt,
        outcome=outcome,
        termination=loop.termination,
        steps=len(steps),
        wall_ms=wall_ms,
        context_tokens_final=loop.final_context_tokens,
        **costs,
        grading_output=graded.output[-4000:] if graded else "not graded: " + loop.termination,
        error=error,
        termination_detail=loop.detail,
        average_w=energy / (wall_ms / 1000) if energy is not None and wall_ms > 0 else None,
        **_retrieval_totals(steps),
    )


def _retrieval_totals(steps: Sequence[StepRecord]) -> dict[str, Any]:
    searched = [s for s in steps if s.t_retrieval_start_ns is not None]
    return {
        "retrieval_calls": len(searched),
        "retrieval_index_ms": sum(s.retrieval_index_ms or 0.0 for s in searched)
        if searched else None,
        "energy_retrieval_j": sum_joules([s.energy_retrieval.joules for s in searched])
        if searched else None,
    }


def _agent_limits(task: Task, config: RunConfig, tool_format: str) -> AgentLimits:
    return AgentLimits(
        max_steps=effective_max_steps(config, task.limits.max_steps),
        max_context_tokens=config.max_context_tokens,
        wall_s=config.wall_s or task.limits.wall_s or DEFAULT_WALL_S,
        max_format_errors=config.max_format_errors,
        max_new_tokens=config.max_new_tokens,
        observation_tokens=config.observation_tokens,
        use_grammar=config.grammar,
        stuck_after=config.stuck_after,
        draft_first=config.draft_first,
        repair=config.repair,
        tool_format=tool_format,
    )


def run_task(
    task: Task,
    attempt: int,
    config: RunConfig,
    engine: Engine,
    sink: EventSink,
    stop_requested: Callable[[], bool | str],
    collector: StepCollector,
    retrieval: Any = None,  # a RetrievalService: the task's toolbox offers search_code
    tool_format: str = "text",  # resolved for the run: native | text
    agents: AgentContext | None = None,  # an external agent's endpoint and log folder
) -> TaskRecord:
    """`collector` must sit downstream of `sink`'s metering, so task totals see energies."""
    collector.steps.clear()
    limits = _agent_limits(task, config, tool_format)
    process_limits = _process_limits(task, config)
    t0 = time.monotonic_ns()
    error: str | None = None
    graded: Grade | None = None
    loop: LoopResult | None = None
    ws: Workspace | None = None
    try:
        ws = Workspace.create(task.repo_dir)
        loop = _drive(task, attempt, config, engine, sink, stop_requested, ws, limits,
                      process_limits, retrieval, agents)
        if loop.termination == "engine_error":
            error = loop.detail
        elif loop.termination == "sandbox_error":  # the workspace failed under the agent
            error = f"sandbox error: {loop.detail}"
        elif loop.termination not in ("interrupted", "skipped"):
            # hidden tests are copied in only now, after submit or a limit
            graded = _grade_safely(task, ws, process_limits)
    except StoreError:
        raise  # the run directory cannot be written (a full disk): that ends the run
    except Exception as exc:  # a sandbox fault ends this task, recorded; never the run
        detail = f"{type(exc).__name__}: {exc}"
        steps = loop.steps if loop is not None else len(collector.steps)
        loop = LoopResult("sandbox_error", steps, loop.final_context_tokens if loop else 0,
                          detail)
        error = f"sandbox error: {detail}"[:2000]
    finally:
        left = ws.cleanup() if ws is not None else []
    if left and graded is not None:
        note = f"\n[workspace cleanup left {len(left)} entries: {'; '.join(left[:3])}]"
        graded = dataclasses.replace(graded, output=graded.output + note)
    record = _task_record(
        task, attempt, loop, graded, collector.steps, (time.monotonic_ns() - t0) / 1e6, error
    )
    sink.emit(record)
    return collector.tasks[-1]  # the record with the task's metered energy


def _drive(
    task: Task, attempt: int, config: RunConfig, engine: Engine, sink: EventSink,
    stop_requested: Callable[[], bool | str], ws: Workspace, limits: AgentLimits,
    process_limits: ProcessLimits, retrieval: Any, agents: AgentContext | None,
) -> LoopResult:
    """The run's agent over one task's workspace, until it ends (harness/ has each)."""
    common = {"task_id": task.id, "attempt": attempt, "title": task.title, "issue": task.issue,
              "stop_requested": stop_requested}
    if config.agent == "single-shot":
        return run_single_shot(engine=engine, ws=ws, sink=sink, **common)
    if config.agent in EXTERNAL_AGENTS:
        assert agents is not None
        return run_external(config.agent, config.agent_cmd, agents, ws=ws,
                            process_limits=process_limits, max_steps=limits.max_steps,
                            wall_s=limits.wall_s or DEFAULT_WALL_S, **common)
    retriever = retrieval.retriever(ws.root) if retrieval is not None else None
    try:
        return run_agent(
            engine=engine,
            toolbox=Toolbox(ws, task.test_command, process_limits, retriever=retriever),
            sink=sink, limits=limits, **common,
        )
    finally:
        if retriever is not None:
            retriever.close()


def _grade_safely(task: Task, ws: Workspace, limits: ProcessLimits) -> Grade:
    """The grade, or an unresolved one saying why grading could not run (a workspace the
    agent left in a state the hidden tests cannot be installed into)."""
    try:
        return grade(task, ws, limits)
    except Exception as exc:
        return Grade(resolved=False, exit_code=None, timed_out=False, wall_ms=0.0,
                     output=f"not graded: cannot install the hidden tests: "
                            f"{type(exc).__name__}: {exc}"[:2000])


def _run_label(suite: str, model: str) -> str:
    model_label = Path(model).stem if "/" in model or model.endswith(".gguf") else model
    return f"{Path(suite).name}-{model_label}"[:80]


def execute_run(
    config: RunConfig,
    *,
    sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool | str] = lambda: False,
    progress: bool = True,
    engine_factory: EngineFactory | None = None,
    resume_dir: Path | None = None,
) -> RunResult:
    """`resume_dir`: continue that interrupted run (policy in results/resume.py)."""
    suite = load_suite(config.suite)
    tasks = select_tasks(suite, config.tasks)
    out = Path(config.out)
    check_out_writable(out)
    preflight(tasks, config)
    check_agent(config.agent, config.agent_cmd)  # before the model loads
    retrieval = _retrieval_service(config)
    peak_rss_scope = reset_peak_rss()  # the run's own peak, model load included
    model, engine = build_engine(config, progress=progress, engine_factory=engine_factory)
    with closing_on_error(engine):
        tool_format = resolve_tool_format(config.tool_format, engine, live=True)
    plan = plan_resume(resume_dir) if resume_dir is not None else None
    if plan is None:
        run_dir = make_run_dir(out, _run_label(suite.name, model.name or str(model.path)))
    else:
        run_dir = plan.run_dir
    device = device_provenance(engine)  # before the session: not inside the run's time
    with RunSession.open(config, run_dir, config.to_dict(), engine, sinks,
                         stop_requested=stop_requested, resume=plan,
                         peak_rss_scope=peak_rss_scope) as session:
        provenance = build_provenance(config, model, engine, session.power, device)
        provenance["tool_format"] = tool_format.to_dict()
        if retrieval is not None:
            provenance["retrieval"] = retrieval.provenance()
        # reports keep the guided tier apart from the graded ones (results/tiers.py)
        provenance["task_tiers"] = {t.id: t.tier for t in tasks}
        provenance["agent"] = agent_provenance(config)
        session.emit(
            RunStarted(run_dir.name, str(run_dir), suite.name, tuple(t.id for t in tasks),
                       provenance)
        )
        with open_agents(config.agent, engine, session.sink, run_dir,
                         model.name or Path(str(model.path)).stem) as agents:
            for task in tasks:
                if stop_requested():
                    break
                if plan is not None and task.id in plan.done:
                    session.records.append(plan.done[task.id])  # finished before the stop: kept
                    continue
                attempt = plan.next_attempt.get(task.id, 0) if plan is not None else 0
                with session.unit(task.id, attempt):
                    session.records.append(run_task(
                        task, attempt, config, engine, session.sink, stop_requested,
                        session.collector, retrieval, tool_format.resolved, agents))
    return RunResult(run_dir, session.status, tuple(session.records))


def _retrieval_service(config: RunConfig) -> Any:
    """The run's retrieval service when config.retrieval is on, checked before the model
    loads; None when off."""
    if not config.retrieval:
        return None
    from ..retrieval.run import service_for_run

    return service_for_run(config)
