"""What every kind of run shares: the output check, the run directory's store, the meter
(sources, sampler, metered fan-out), the step collector, the provenance and the end of the run.

The driver (driver.py) opens the one session of a run once the engine is loaded and uses it as
a context manager: entering starts the sampler, leaving ends the run the same way whatever
stopped it (complete, interrupted, failed), whatever the workload.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from .. import __version__
from ..config import RunConfig
from ..errors import StoreError
from ..events import Event, EventSink, FanOut, RunFinished, StepRecord, TaskRecord
from ..meter import (
    NO_SOURCE,
    PEAK_RSS_LIFETIME,
    PROC_STAT,
    HostReader,
    MeteredSink,
    Sampler,
    device_snapshot,
    measure_baseline,
    peak_rss_bytes,
    sum_joules,
)
from ..meter.sources import BATTERY_MIN_INTERVAL_S, Total, choose_total, describe, discover_all
from ..meter.sources import board_info as jetson_board_info
from ..results import INTERFERENCE_THRESHOLD
from ..rundir import Provenance, ResumePlan, RunStore
from ..sandbox import isolation_report
from .task_records import task_record


def failure_reason(exc: BaseException) -> str:
    """Why a run failed, in one line for `report` and `check`."""
    if isinstance(exc, BrokenPipeError):
        return ("the output's reader went away (broken pipe, e.g. `| head`); run with --out "
                "and read the run directory instead")
    if isinstance(exc, KeyboardInterrupt):
        return "aborted by a second Ctrl-C"
    return f"{type(exc).__name__}: {str(exc)[:300]}"


class StepCollector:
    """Keeps the current task's steps and the task records as the store sees them, i.e.
    after metering."""

    def __init__(self) -> None:
        self.steps: list[StepRecord] = []
        self.tasks: list[TaskRecord] = []
        self.kv_cache_bytes_max: int | None = None  # over the whole run (steps are cleared)

    def emit(self, event: Event) -> None:
        if isinstance(event, StepRecord):
            self.steps.append(event)
            self.kv_cache_bytes_max = max(self.kv_cache_bytes_max or 0, event.kv_cache_bytes)
        elif isinstance(event, TaskRecord):
            self.tasks.append(event)


def check_out_writable(out: Path) -> None:
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


def sample_interval(config: RunConfig, total: Total | None) -> float:
    # battery fuel gauges update about once a second: faster sampling only repeats values
    if total is not None and any(s.info.family == "battery" for s in total.sources):
        return max(config.sample_interval_s, BATTERY_MIN_INTERVAL_S)
    return config.sample_interval_s


def endpoint_load_reason(config: RunConfig) -> str | None:
    """Why host interference is not measured with an endpoint engine: the model's work is
    another process's CPU time, which /proc/stat cannot tell from a neighbour's."""
    if config.endpoint is None:
        return None
    return (f"not measured: the model runs in the endpoint's server ({config.endpoint}), "
            "whose CPU time cannot be told from other processes'")


def interference_provenance(config: RunConfig) -> dict[str, Any]:
    """How interference was measured and judged for this run (docs/interference.md)."""
    return {"counters": str(PROC_STAT), "threshold_share": INTERFERENCE_THRESHOLD,
            "allowed": config.allow_interference,
            "not_measured": endpoint_load_reason(config)}


def device_provenance(engine: Any) -> dict[str, Any]:
    """The device snapshot and its memory bandwidth (cached per device; measured on the first
    run there, before the run's clock starts)."""
    from ..results import device_bandwidth

    device = device_snapshot(getattr(engine, "system_info", None))
    return {**device, "memory_bandwidth": device_bandwidth(device)}


def build_provenance(
    config: RunConfig, model: Any, engine: Any, power: dict[str, Any],
    device: dict[str, Any] | None = None, workload: dict[str, Any] | None = None,
) -> Provenance:
    """The run's provenance record: its device, model, engine, sandbox, power, interference
    rule and config, and the workload's own sections (`workload`, by name)."""
    return Provenance.from_dict({
        "edgeagent_version": __version__,
        "device": device if device is not None else device_provenance(engine),
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
        "interference": interference_provenance(config),
        "config": config.to_dict(),
        **(workload or {}),
    })


def ended_status(exc: BaseException | None, stopped: bool) -> str:
    """How a run, a replay or a sweep ended: `complete`; `interrupted` when a stop was asked
    for (first Ctrl-C, SIGTERM) or a second Ctrl-C aborted it; `failed` when anything else
    was raised."""
    if exc is None:
        return "interrupted" if stopped else "complete"
    return "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"


@contextlib.contextmanager
def closing_on_error(engine: object) -> Iterator[None]:
    """Before a session owns the engine: a check that fails frees the loaded model first."""
    try:
        yield
    except Exception:
        getattr(engine, "close", lambda: None)()
        raise


@dataclass
class RunSession:
    """One run directory being written: its store, its meter and the sink every event goes
    through (metering first, then the store, the collector and the caller's sinks).

    Used as `with RunSession.open(...) as session:` by the driver (driver.py): entering
    starts the meter's clock and sampler; leaving, however the block ends (done, a stop asked
    for, Ctrl-C, an exception), records the status (`ended_status`), cuts short the task in
    progress (`unit`), records RunFinished, closes the store and the engine, then runs
    `after_close`. The exception, if any, goes on to the caller.
    """

    run_dir: Path
    store: RunStore
    sampler: Sampler
    collector: StepCollector
    sink: EventSink
    power: dict[str, Any]
    engine: object
    stop_requested: Callable[[], object]
    # what the peak RSS read at the end covers: set by the caller that reset it (host.py)
    peak_rss_scope: str = PEAK_RSS_LIFETIME
    # files made from the closed run.db (a replay's summary): run after the session closed
    # cleanly, whether its block raised or not
    after_close: Callable[[], object] | None = None
    records: list[TaskRecord] = field(default_factory=list)  # the run's tasks, for RunFinished
    status: str = "failed"  # until the session ends
    t0_ns: int = 0
    unit_in_progress: tuple[str, int, int] | None = None  # task, attempt, start ns

    @classmethod
    def open(
        cls, config: RunConfig, run_dir: Path, store_config: dict[str, Any], engine: object,
        sinks: Sequence[EventSink] = (), *, stop_requested: Callable[[], object] = lambda: False,
        resume: ResumePlan | None = None, peak_rss_scope: str = PEAK_RSS_LIFETIME,
        after_close: Callable[[], object] | None = None,
    ) -> RunSession:
        """The store and the meter; with `baseline_s`, the idle power is measured now, with
        the model loaded and before the sampler starts: the device as it idles in a run.
        The session closes `engine` when it ends."""
        store = RunStore(run_dir, store_config, resume=resume)
        root = Path(config.power_root)
        discovery = discover_all(root, tdp_w=config.power_estimate_tdp)
        total = choose_total(discovery)
        sampler = Sampler(
            sample_interval(config, total),
            sources=total.sources if total is not None else discovery.sources,
            side_sources=discovery.sources,
            host=HostReader(root),  # a fixture root stands in for / here too
        )
        collector = StepCollector()
        sink = MeteredSink(FanOut(store, collector, *sinks), sampler, total,
                           load_null_reason=endpoint_load_reason(config))
        power = describe(discovery, total)
        if config.baseline_s > 0:
            power["baseline"] = dataclasses.asdict(measure_baseline(
                total, config.baseline_s, sample_interval(config, total)))
        if any(s.info.family == "jetson" for s in discovery.sources):
            power["jetson_board"] = jetson_board_info(root)
        return cls(run_dir, store, sampler, collector, sink, power, engine, stop_requested,
                   peak_rss_scope, after_close)

    def __enter__(self) -> RunSession:
        self.t0_ns = time.monotonic_ns()
        self.sampler.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.status = ended_status(exc, exc is None and bool(self.stop_requested()))
        # a second Ctrl-C or an exception says why; SystemExit and the like say nothing
        why = failure_reason(exc) if isinstance(exc, (Exception, KeyboardInterrupt)) else None
        if self.unit_in_progress is not None and why is not None:
            task_id, attempt, t0 = self.unit_in_progress
            self.record_unfinished(task_id, attempt, (time.monotonic_ns() - t0) / 1e6, why)
        recorded = why if self.status == "failed" else None
        self._finish(self.status, self.records, recorded)
        if self.after_close is not None:
            self.after_close()

    @contextlib.contextmanager
    def unit(self, task_id: str, attempt: int) -> Iterator[None]:
        """The task (or conversation) being run: should the block raise, it stays in progress
        and the session's end records it cut short (record_unfinished), so `--resume` runs
        it again."""
        self.unit_in_progress = (task_id, attempt, time.monotonic_ns())
        yield  # not in a finally: an exception leaves the unit in progress, on purpose
        self.unit_in_progress = None

    def emit(self, event: Event) -> None:
        self.sink.emit(event)

    def record_unfinished(self, task_id: str, attempt: int, wall_ms: float, why: str) -> None:
        """The task a failure or an abort cut short gets a record, `interrupted` with the
        reason, so no task stays "running" and `--resume` runs it again. Written to the store
        alone: the other sinks (a console whose reader went away) may be what failed."""
        steps = [s for s in self.collector.steps if s.task_id == task_id]
        record = task_record(task_id, attempt, steps, wall_ms, outcome="unresolved",
                             termination="interrupted", grading_output="not graded: " + why,
                             error=why, termination_detail=why, finished=False)
        with contextlib.suppress(StoreError):  # the store may be what failed (disk full)
            self.store.emit(record)

    def _finish(self, status: str, records: Sequence[TaskRecord],
                failure_reason: str | None = None) -> None:
        """Stop the meter, record RunFinished with the run's energy and sample rate (and why
        it failed), and close the store and the engine, even when a sink fails."""
        self.sampler.stop()
        wall_ms = (time.monotonic_ns() - self.t0_ns) / 1e6
        run_energy = sum_joules([r.energy_j for r in records])
        finished = RunFinished(
            self.run_dir.name, status, tuple(records), wall_ms, energy_j=run_energy,
            energy_null_reason=None if run_energy is not None else (
                next((r.energy_null_reason for r in records if r.energy_j is None), NO_SOURCE)
            ),
            sample_hz=len(self.sampler.samples()) / (wall_ms / 1000) if wall_ms > 0 else None,
            failure_reason=failure_reason,
            peak_rss_bytes=peak_rss_bytes(),
            peak_rss_scope=self.peak_rss_scope,
            kv_cache_bytes_max=self.collector.kv_cache_bytes_max,
        )
        try:
            if failure_reason is not None:
                self.store.emit(finished)  # the printers may be what failed
            else:
                self.sink.emit(finished)
        finally:
            self.store.close()
            close = getattr(self.engine, "close", None)
            if close:
                close()
