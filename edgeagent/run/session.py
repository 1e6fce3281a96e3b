"""What a live run and a replay share: the output check, the run directory's store, the meter
(sources, sampler, metered fan-out), the step collector, the provenance and the end of the run.

A session is opened once the engine is loaded; `start()` starts the sampler, and `finish()`
ends the run the same way whatever stopped it (complete, interrupted, failed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..config import RunConfig
from ..errors import StoreError
from ..events import Event, EventSink, FanOut, RunFinished, StepRecord, TaskRecord
from ..meter.attribution import MeteredSink, sum_joules
from ..meter.baseline import measure_baseline
from ..meter.device import device_snapshot
from ..meter.energy import NO_SOURCE
from ..meter.host import PEAK_RSS_LIFETIME, HostReader, peak_rss_bytes
from ..meter.sampler import Sampler
from ..meter.sources import Total, choose_total, describe, discover_all
from ..meter.sources.battery import MIN_INTERVAL_S as BATTERY_MIN_INTERVAL_S
from ..meter.sources.jetson import board_info as jetson_board_info
from ..results.resume import ResumePlan
from ..results.store import RunStore
from ..sandbox.process import isolation_report


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


def step_totals(steps: Sequence[StepRecord]) -> dict[str, Any]:
    """A task record's token and time totals over its steps (live, replayed or cut short)."""
    return {
        "prefill_tokens": sum(s.prefill_tokens for s in steps),
        "decoded_tokens": sum(s.decoded_tokens for s in steps),
        "reused_tokens": sum(s.reused_tokens for s in steps),
        "prefill_ms": sum(s.prefill_ms for s in steps),
        "decode_ms": sum(s.decode_ms for s in steps),
        "tool_ms": sum(s.tool_ms for s in steps),
        "format_errors": sum(1 for s in steps if s.format_error),
    }


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


def device_provenance(engine: Any) -> dict[str, Any]:
    """The device snapshot and its memory bandwidth (cached per device; measured on the first
    run there, before the run's clock starts)."""
    from ..results.bandwidth import device_bandwidth

    device = device_snapshot(getattr(engine, "system_info", None))
    return {**device, "memory_bandwidth": device_bandwidth(device)}


def build_provenance(
    config: RunConfig, model: Any, engine: Any, power: dict[str, Any],
    device: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
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
        "config": config.to_dict(),
    }


@dataclass
class RunSession:
    """One run directory being written: its store, its meter and the sink every event goes
    through (metering first, then the store, the collector and the caller's sinks)."""

    run_dir: Path
    store: RunStore
    sampler: Sampler
    collector: StepCollector
    sink: EventSink
    power: dict[str, Any]
    t0_ns: int = 0
    # what the peak RSS read at the end covers: set by the caller that reset it (host.py)
    peak_rss_scope: str = PEAK_RSS_LIFETIME

    @classmethod
    def open(
        cls, config: RunConfig, run_dir: Path, store_config: dict[str, Any],
        sinks: Sequence[EventSink] = (), *, resume: ResumePlan | None = None,
    ) -> RunSession:
        """The store and the meter; with `baseline_s`, the idle power is measured now, with
        the model loaded and before the sampler starts: the device as it idles in a run."""
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
        sink = MeteredSink(FanOut(store, collector, *sinks), sampler, total)
        power = describe(discovery, total)
        if config.baseline_s > 0:
            power["baseline"] = dataclasses.asdict(measure_baseline(
                total, config.baseline_s, sample_interval(config, total)))
        if any(s.info.family == "jetson" for s in discovery.sources):
            power["jetson_board"] = jetson_board_info(root)
        return cls(run_dir, store, sampler, collector, sink, power)

    def start(self) -> None:
        self.t0_ns = time.monotonic_ns()
        self.sampler.start()

    def emit(self, event: Event) -> None:
        self.sink.emit(event)

    def record_unfinished(self, task_id: str, attempt: int, wall_ms: float, why: str) -> None:
        """The task a failure or an abort cut short gets a record, `interrupted` with the
        reason, so no task stays "running" and `--resume` runs it again. Written to the store
        alone: the other sinks (a console whose reader went away) may be what failed."""
        steps = [s for s in self.collector.steps if s.task_id == task_id]
        record = TaskRecord(
            task_id=task_id, attempt=attempt, outcome="unresolved", termination="interrupted",
            steps=len(steps), wall_ms=wall_ms,
            context_tokens_final=max((s.context_tokens for s in steps), default=0),
            **step_totals(steps), energy_j=None,
            energy_null_reason="the task did not finish", grading_output="not graded: " + why,
            error=why, termination_detail=why,
        )
        with contextlib.suppress(StoreError):  # the store may be what failed (disk full)
            self.store.emit(record)

    def finish(self, engine: object, status: str, records: Sequence[TaskRecord],
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
            close = getattr(engine, "close", None)
            if close:
                close()
