"""A live run: check the tasks, load the engine, open the session (store and meter), then for
each task run the agent loop in a fresh workspace, grade it with the hidden tests and record
it."""
from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent import DEFAULT_WALL_S, AgentLimits, LoopResult, resolve_tool_format, run_agent
from ..config import RunConfig, effective_max_steps
from ..engine import Engine, EngineFactory, build_engine
from ..errors import StoreError, SuiteError
from ..events import EventSink, StepRecord, TaskRecord
from ..harness import (
    EXTERNAL_AGENTS,
    AgentContext,
    agent_provenance,
    check_agent,
    open_agents,
    run_external,
    run_single_shot,
)
from ..meter import reset_peak_rss
from ..rundir import ResumePlan, plan_resume
from ..sandbox import ProcessLimits, Toolbox, Workspace, run_command
from ..suite import Grade, Task, grade, load_suite, select_tasks, task_limits
from .driver import Loaded, drive, finished_units, model_label
from .session import (
    RunSession,
    StepCollector,
    check_out_writable,
    closing_on_error,
)
from .task_records import task_record

# exit codes of a shell that could not start the command at all
_CANNOT_RUN = {126, 127}


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    status: str
    tasks: tuple[TaskRecord, ...]


def _process_limits(task: Task, config: RunConfig) -> ProcessLimits:
    return task_limits(task, command_timeout_s=config.command_timeout_s, out=config.out,
                       model=config.model)


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
    if error is not None:
        outcome = "error"
    else:
        outcome = "resolved" if graded is not None and graded.resolved else "unresolved"
    return task_record(
        task.id, attempt, steps, wall_ms, outcome=outcome, termination=loop.termination,
        grading_output=graded.output[-4000:] if graded else "not graded: " + loop.termination,
        error=error, termination_detail=loop.detail)


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
        repair_strategy=config.repair_strategy,
        after_draft_steps=config.after_draft_steps,
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
                            wall_s=limits.wall_s or DEFAULT_WALL_S,
                            test_command=task.test_command, **common)
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


@dataclass
class LiveWorkload:
    """A suite's tasks, each run by the run's agent in a fresh workspace and graded by its
    hidden tests."""

    config: RunConfig
    suite_name: str
    tasks: Sequence[Task]
    tool_format: Any  # the resolved ToolFormat
    retrieval: Any
    stop_requested: Callable[[], bool | str]
    model_name: str  # the name an external agent asks the run's endpoint for
    stop_ends_run: bool = True
    agents: AgentContext | None = None  # while the tasks run

    @property
    def suite(self) -> str:
        return self.suite_name

    def label(self, model: Any) -> str:
        return f"{Path(self.suite_name).name}-{model_label(model)}"[:80]

    def store_config(self, config: RunConfig) -> dict[str, Any]:
        return config.to_dict()

    def provenance(self) -> dict[str, Any]:
        sections = {"tool_format": self.tool_format.to_dict()}
        if self.retrieval is not None:
            sections["retrieval"] = self.retrieval.provenance()
        # reports keep the guided tier apart from the graded ones (results/tiers.py)
        sections["task_tiers"] = {t.id: t.tier for t in self.tasks}
        sections["agent"] = agent_provenance(self.config)
        return sections

    def unit_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.tasks)

    @contextlib.contextmanager
    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> Iterator[dict[str, TaskRecord]]:
        """An external agent's endpoint, open while the tasks run."""
        with open_agents(self.config.agent, session.engine, session.sink, session.run_dir,
                         self.model_name) as agents:
            self.agents = agents
            yield finished_units(plan)

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        task = next(t for t in self.tasks if t.id == unit)
        return run_task(task, attempt, self.config, session.engine, session.sink,
                        self.stop_requested, session.collector, self.retrieval,
                        self.tool_format.resolved, self.agents)

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        pass

    def after_close(self, run_dir: Path) -> None:
        pass


def execute_run(
    config: RunConfig,
    *,
    sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool | str] = lambda: False,
    progress: bool = True,
    engine_factory: EngineFactory | None = None,
    resume_dir: Path | None = None,
) -> RunResult:
    """`resume_dir`: continue that interrupted run (policy in rundir/resume.py)."""
    suite = load_suite(config.suite)
    tasks = select_tasks(suite, config.tasks)
    check_out_writable(Path(config.out))
    check_agent(config.agent, config.agent_cmd)  # before the sandbox probe and the model load
    preflight(tasks, config)
    retrieval = _retrieval_service(config)
    peak_rss_scope = reset_peak_rss()  # the run's own peak, model load included
    model, engine = build_engine(config, progress=progress, engine_factory=engine_factory)
    with closing_on_error(engine):
        tool_format = resolve_tool_format(config.tool_format, engine, live=True)
    plan = plan_resume(resume_dir) if resume_dir is not None else None
    workload = LiveWorkload(config, suite.name, tasks, tool_format, retrieval, stop_requested,
                            model.name or Path(str(model.path)).stem)
    session = drive(workload, Loaded(config, model, engine, peak_rss_scope), plan=plan,
                    sinks=sinks, stop_requested=stop_requested)
    return RunResult(session.run_dir, session.status, tuple(session.records))


def _retrieval_service(config: RunConfig) -> Any:
    """The run's retrieval service when config.retrieval is on, checked before the model
    loads; None when off."""
    if not config.retrieval:
        return None
    from ..retrieval import service_for_run

    return service_for_run(config)
