"""One run: check the tasks, load the engine, start the meter and the store, then for each task
run the agent loop in a fresh workspace, grade it with the hidden tests and record it."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import __version__
from .agent.loop import AgentLimits, LoopResult, run_agent
from .config import (
    DEFAULT_COMMAND_TIMEOUT_S,
    DEFAULT_WALL_S,
    RunConfig,
    effective_max_steps,
)
from .engine.base import Engine
from .errors import StoreError, SuiteError
from .events import (
    Event,
    EventSink,
    FanOut,
    RunFinished,
    RunStarted,
    StepRecord,
    TaskRecord,
)
from .meter.attribution import MeteredSink, sum_joules
from .meter.baseline import measure_baseline
from .meter.device import device_snapshot
from .meter.energy import NO_SOURCE
from .meter.host import HostReader
from .meter.sampler import Sampler
from .meter.sources import Total, choose_total, describe, discover_all
from .meter.sources.battery import MIN_INTERVAL_S as BATTERY_MIN_INTERVAL_S
from .meter.sources.jetson import board_info as jetson_board_info
from .models import resolve_model
from .results.resume import plan_resume
from .results.store import RunStore, make_run_dir
from .sandbox.process import ProcessLimits, isolation_report, run_command
from .sandbox.tools import Toolbox
from .sandbox.workspace import Workspace
from .suite import Grade, Task, grade, load_suite, select_tasks

# exit codes of a shell that could not start the command at all
_CANNOT_RUN = {126, 127}


@dataclass(frozen=True)
class RunResult:
    run_dir: Path
    status: str
    tasks: tuple[TaskRecord, ...]


class _StepCollector:
    """Keeps the current task's steps and the task records as the store sees them, i.e.
    after metering."""

    def __init__(self) -> None:
        self.steps: list[StepRecord] = []
        self.tasks: list[TaskRecord] = []

    def emit(self, event: Event) -> None:
        if isinstance(event, StepRecord):
            self.steps.append(event)
        elif isinstance(event, TaskRecord):
            self.tasks.append(event)


def _process_limits(task: Task, config: RunConfig) -> ProcessLimits:
    timeout = config.command_timeout_s or task.limits.command_timeout_s or DEFAULT_COMMAND_TIMEOUT_S
    return ProcessLimits(timeout_s=timeout)


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


_PHASES = ("prefill", "decode", "tool", "other")


def _phase_joules(steps: Sequence[StepRecord], phase: str) -> float | None:
    return sum_joules([getattr(s, f"energy_{phase}").joules for s in steps])


def _task_energy(steps: Sequence[StepRecord]) -> tuple[float | None, str | None]:
    phases = [getattr(s, f"energy_{p}") for s in steps for p in _PHASES]
    if not phases:
        return None, NO_SOURCE
    missing = [p for p in phases if p.joules is None]
    if missing:
        return None, missing[0].null_reason or NO_SOURCE
    return sum(p.joules for p in phases if p.joules is not None), None


def _task_record(
    task: Task, attempt: int, loop: LoopResult, graded: Grade | None, steps: list[StepRecord],
    wall_ms: float, error: str | None,
) -> TaskRecord:
    energy, reason = _task_energy(steps)
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
        prefill_tokens=sum(s.prefill_tokens for s in steps),
        decoded_tokens=sum(s.decoded_tokens for s in steps),
        reused_tokens=sum(s.reused_tokens for s in steps),
        prefill_ms=sum(s.prefill_ms for s in steps),
        decode_ms=sum(s.decode_ms for s in steps),
        tool_ms=sum(s.tool_ms for s in steps),
        format_errors=sum(1 for s in steps if s.format_error),
        energy_j=energy,
        energy_null_reason=reason,
        grading_output=graded.output[-4000:] if graded else "not graded: " + loop.termination,
        error=error,
        energy_prefill_j=_phase_joules(steps, "prefill"),
        energy_decode_j=_phase_joules(steps, "decode"),
        energy_tool_j=_phase_joules(steps, "tool"),
        energy_other_j=_phase_joules(steps, "other"),
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


def run_task(
    task: Task,
    attempt: int,
    config: RunConfig,
    engine: Engine,
    sink: EventSink,
    stop_requested: Callable[[], bool | str],
    collector: _StepCollector,
    retrieval: Any = None,  # a RetrievalService: the task's toolbox offers search_code
) -> TaskRecord:
    """`collector` must sit downstream of `sink`'s metering, so task totals see energies."""
    collector.steps.clear()
    limits = AgentLimits(
        max_steps=effective_max_steps(config, task.limits.max_steps),
        max_context_tokens=config.max_context_tokens,
        wall_s=config.wall_s or task.limits.wall_s or DEFAULT_WALL_S,
        max_format_errors=config.max_format_errors,
        max_new_tokens=config.max_new_tokens,
        observation_tokens=config.observation_tokens,
        use_grammar=config.grammar,
    )
    process_limits = _process_limits(task, config)
    t0 = time.monotonic_ns()
    error: str | None = None
    graded: Grade | None = None
    with Workspace.create(task.repo_dir) as ws:
        retriever = retrieval.retriever(ws.root) if retrieval is not None else None
        try:
            loop = run_agent(
                task_id=task.id, attempt=attempt, title=task.title, issue=task.issue,
                engine=engine,
                toolbox=Toolbox(ws, task.test_command, process_limits, retriever=retriever),
                sink=sink, limits=limits, stop_requested=stop_requested,
            )
        finally:
            if retriever is not None:
                retriever.close()
        if loop.termination == "engine_error":
            error = loop.detail
        elif loop.termination not in ("interrupted", "skipped"):
            # hidden tests are copied in only now, after submit or a limit
            graded = grade(task, ws, process_limits)
    record = _task_record(
        task, attempt, loop, graded, collector.steps, (time.monotonic_ns() - t0) / 1e6, error
    )
    sink.emit(record)
    return collector.tasks[-1]  # the record with the task's metered energy


def _run_label(suite: str, model: str) -> str:
    model_label = Path(model).stem if "/" in model or model.endswith(".gguf") else model
    return f"{Path(suite).name}-{model_label}"[:80]


def _check_out_writable(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".edgeagent-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise StoreError(
            f"output directory {out} is not writable: {exc.strerror or exc} "
            "(choose another with --out)"
        ) from exc


def build_provenance(
    config: RunConfig, model: Any, engine: Any, power: dict[str, Any]
) -> dict[str, Any]:
    return {
        "edgeagent_version": __version__,
        "device": device_snapshot(getattr(engine, "system_info", None)),
        "model": {
            "name": model.name,
            "path": str(model.path) if model.path is not None else None,
            "sha256": model.sha256,
            "source": model.source,
            **engine.provenance(),
        },
        "sandbox_isolation": isolation_report(),
        "power": power,
        "power_null_reason": None if power["total"] else NO_SOURCE,
        "seed": config.seed,
        "config": config.to_dict(),
    }


def execute_run(
    config: RunConfig,
    *,
    sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool | str] = lambda: False,
    progress: bool = True,
    engine_factory: Callable[[Path, RunConfig], Any] | None = None,
    resume_dir: Path | None = None,
) -> RunResult:
    """`resume_dir`: continue that interrupted run (policy in results/resume.py)."""
    suite = load_suite(config.suite)
    tasks = select_tasks(suite, config.tasks)
    out = Path(config.out)
    _check_out_writable(out)
    preflight(tasks, config)
    retrieval = _retrieval_service(config)
    if config.endpoint:
        from .engine.http import endpoint_engine

        model, engine = endpoint_engine(config, progress=progress)
    else:
        model = resolve_model(config.model, progress=progress)
        factory = engine_factory or _llamacpp_engine
        engine = factory(model.path, config)
    plan = plan_resume(resume_dir) if resume_dir is not None else None
    if plan is None:
        run_dir = make_run_dir(out, _run_label(suite.name, model.name or str(model.path)))
    else:
        run_dir = plan.run_dir
    store = RunStore(run_dir, config.to_dict(), resume=plan)
    discovery = discover_all(Path(config.power_root), tdp_w=config.power_estimate_tdp)
    total = choose_total(discovery)
    sampler = Sampler(
        _sample_interval(config, total),
        sources=total.sources if total is not None else discovery.sources,
        side_sources=discovery.sources,
        host=HostReader(Path(config.power_root)),  # a fixture root stands in for / here too
    )
    collector = _StepCollector()
    sink = MeteredSink(FanOut(store, collector, *sinks), sampler, total)
    power = describe(discovery, total)
    if config.baseline_s > 0:
        # before the sampler starts, with the model loaded: the device as it idles in a run
        power["baseline"] = dataclasses.asdict(measure_baseline(
            total, config.baseline_s, _sample_interval(config, total)))
    if any(s.info.family == "jetson" for s in discovery.sources):
        power["jetson_board"] = jetson_board_info(Path(config.power_root))
    records: list[TaskRecord] = []
    status = "failed"
    t0 = time.monotonic_ns()
    sampler.start()
    try:
        provenance = build_provenance(config, model, engine, power)
        if retrieval is not None:
            provenance["retrieval"] = retrieval.provenance()
        sink.emit(
            RunStarted(run_dir.name, str(run_dir), suite.name, tuple(t.id for t in tasks),
                       provenance)
        )
        for task in tasks:
            if stop_requested():
                break
            if plan is not None and task.id in plan.done:
                records.append(plan.done[task.id])  # finished before the run stopped: kept
                continue
            attempt = plan.next_attempt.get(task.id, 0) if plan is not None else 0
            records.append(run_task(task, attempt, config, engine, sink, stop_requested,
                                    collector, retrieval))
        status = "interrupted" if stop_requested() else "complete"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        finish_run(sink, store, engine, sampler, run_dir, status, records, t0)
    return RunResult(run_dir, status, tuple(records))


def finish_run(
    sink: EventSink, store: RunStore, engine: object, sampler: Sampler, run_dir: Path,
    status: str, records: Sequence[TaskRecord], t0_ns: int,
) -> None:
    """Stop the meter, record RunFinished with the run's energy and sample rate, and close
    the store and the engine: the same end for live runs and replays, whatever stopped them."""
    sampler.stop()
    wall_ms = (time.monotonic_ns() - t0_ns) / 1e6
    run_energy = sum_joules([r.energy_j for r in records])
    sink.emit(RunFinished(
        run_dir.name, status, tuple(records), wall_ms, energy_j=run_energy,
        energy_null_reason=None if run_energy is not None else (
            next((r.energy_null_reason for r in records if r.energy_j is None), NO_SOURCE)
        ),
        sample_hz=len(sampler.samples()) / (wall_ms / 1000) if wall_ms > 0 else None,
    ))
    store.close()
    close = getattr(engine, "close", None)
    if close:
        close()


def _retrieval_service(config: RunConfig) -> Any:
    """The run's retrieval service when config.retrieval is on, checked before the model
    loads; None when off."""
    if not config.retrieval:
        return None
    from .retrieval.run import service_for_run

    return service_for_run(config)


def _sample_interval(config: RunConfig, total: Total | None) -> float:
    # battery fuel gauges update about once a second: faster sampling only repeats values
    if total is not None and any(s.info.family == "battery" for s in total.sources):
        return max(config.sample_interval_s, BATTERY_MIN_INTERVAL_S)
    return config.sample_interval_s


def _llamacpp_engine(path: Path, config: RunConfig) -> Engine:
    from .engine.llamacpp import LlamaCppEngine
    from .engine.speculative import parse_spec

    return LlamaCppEngine(
        path,
        n_ctx=config.n_ctx,
        n_threads=config.threads,
        n_gpu_layers=config.gpu_layers,
        seed=config.seed,
        temperature=config.temperature,
        spec=parse_spec(config.spec, ngram=config.spec_ngram, max_draft=config.spec_max_draft),
    )
