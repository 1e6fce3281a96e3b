"""Attribution of the sampled power to each step's phases, as an event sink in front of the
others: a StepRecord goes in, the same record with energy per phase, CPU, RSS and temperature
comes out; the samples themselves go to the store in batches."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from ..events import (
    Event,
    EventSink,
    PhaseEnergy,
    PhaseLoad,
    RunFinished,
    SampleBatch,
    StepAnswered,
    StepRecord,
    TaskRecord,
    TaskStarted,
)
from .cpu_load import phase_load
from .energy import DEFAULT_MAX_GAP_NS, NO_SOURCE, attribute_energy
from .sample import Sample
from .sampler import Sampler
from .sources import Total


def sum_phase_energy(parts: Sequence[PhaseEnergy], total: Total | None) -> PhaseEnergy:
    """The total's energy is the sum of its sources' (RAPL packages + DRAM); null if any is."""
    if total is None or not parts:
        return PhaseEnergy(None, null_reason=NO_SOURCE)
    missing = next((p for p in parts if p.joules is None), None)
    if missing is not None:
        return PhaseEnergy(None, total.label, total.scope, missing.null_reason)
    return PhaseEnergy(sum(p.joules or 0.0 for p in parts), total.label, total.scope, None)


def sum_joules(values: Sequence[float | None]) -> float | None:
    return None if not values or any(v is None for v in values) else sum(v or 0.0 for v in values)


PHASES = ("prefill", "decode", "tool", "other")


def phase_joules(steps: Sequence[StepRecord], phase: str) -> float | None:
    """One phase's energy over a task's steps; null when any step's is."""
    return sum_joules([getattr(s, f"energy_{phase}").joules for s in steps])


def task_energy(steps: Sequence[StepRecord]) -> tuple[float | None, str | None]:
    """(joules, None) over every phase of every step, or (None, the first null reason)."""
    phases = [getattr(s, f"energy_{p}") for s in steps for p in PHASES]
    if not phases:
        return None, NO_SOURCE
    missing = [p for p in phases if p.joules is None]
    if missing:
        return None, missing[0].null_reason or NO_SOURCE
    return sum(p.joules for p in phases if p.joules is not None), None


class MeteredSink:
    def __init__(self, inner: EventSink, sampler: Sampler, total: Total | None,
                 load_null_reason: str | None = None) -> None:
        """`load_null_reason`: why host interference cannot be told here (the model runs in
        a server process whose CPU time is not the run's own)."""
        self.inner = inner
        self.sampler = sampler
        self.total = total
        self.load_null_reason = load_null_reason
        self._other_from: int | None = None
        self._task_from: int | None = None
        self._flushed_to_ns = -1

    def energy(self, t0: int, t1: int) -> PhaseEnergy:
        if self.total is None:
            return PhaseEnergy(None, null_reason=NO_SOURCE)
        samples = self.sampler.samples_covering(t0, t1)
        # a reading may stand in over a gap of a few sampling intervals, never more
        max_gap = max(DEFAULT_MAX_GAP_NS, int(2.5 * self.sampler.interval_s * 1e9))
        parts = [
            attribute_energy(samples, t0, t1, s, max_gap_ns=max_gap) for s in self.total.sources
        ]
        return sum_phase_energy(parts, self.total)

    def load(self, t0: int, t1: int) -> PhaseLoad:
        """Other processes' and steal's CPU time over [t0, t1] (meter/cpu_load.py)."""
        why = self.load_null_reason or self.sampler.cpu_reader.null_reason
        # from two intervals earlier: a phase past the newest sample still has an interval
        lead = int(2 * self.sampler.interval_s * 1e9)
        return phase_load(self.sampler.samples_covering(t0 - lead, t1), t0, t1, why)

    def _flush_samples(self) -> None:
        new: list[Sample] = [s for s in self.sampler.samples() if s.t_ns > self._flushed_to_ns]
        if not new:
            return
        self._flushed_to_ns = new[-1].t_ns
        self.inner.emit(SampleBatch(tuple(
            (s.t_ns, s.cpu_percent, s.rss_bytes, s.temp_c, s.cpu_mhz, s.readings, s.gpu_mhz)
            for s in new
        )))

    def emit(self, event: Event) -> None:
        if isinstance(event, TaskStarted):
            self._other_from = self._task_from = time.monotonic_ns()
        elif isinstance(event, TaskRecord):
            event = self._task_metered(event)
        elif isinstance(event, StepRecord):
            event = self._metered(event)
            self._flush_samples()
        elif isinstance(event, StepAnswered):  # its StepRecord follows: the same interval
            event = StepAnswered(self._metered(event.step, advance=False))
        elif isinstance(event, RunFinished):
            self._flush_samples()
        self.inner.emit(event)

    def _task_metered(self, task: TaskRecord) -> TaskRecord:
        """The task's energy over its whole interval, grading included: the phases of its
        steps are a breakdown of it, not the whole of it."""
        if self._task_from is None:
            return task
        t0, t1 = self._task_from, time.monotonic_ns()
        self._task_from = None  # a record with no TaskStarted (no workspace) is not metered
        self.sampler.edge_sample()  # a right edge for the interval just closed
        energy = self.energy(t0, t1)
        seconds = (t1 - t0) / 1e9
        return dataclasses.replace(
            task,
            energy_j=energy.joules,
            energy_null_reason=energy.null_reason,
            average_w=energy.joules / seconds if energy.joules is not None and seconds else None,
        )

    def _metered(self, step: StepRecord, advance: bool = True) -> StepRecord:
        """The step with its phases' energy; `advance` moves the start of the next step's
        `other` interval to this step's end (not for a step that will be recorded again)."""
        stats = self.sampler.window_stats(step.t_start_ns, step.t_tool_end_ns)
        other_from = self._other_from if self._other_from is not None else step.t_start_ns
        if advance:
            self._other_from = step.t_tool_end_ns
        retrieval = step.energy_retrieval
        if step.t_retrieval_start_ns is not None and step.t_retrieval_end_ns is not None:
            retrieval = self.energy(step.t_retrieval_start_ns, step.t_retrieval_end_ns)
        return dataclasses.replace(
            step,
            energy_retrieval=retrieval,
            energy_prefill=self.energy(step.t_start_ns, step.t_first_token_ns),
            energy_decode=self.energy(step.t_first_token_ns, step.t_decode_end_ns),
            energy_tool=self.energy(step.t_tool_start_ns, step.t_tool_end_ns),
            energy_other=self.energy(other_from, step.t_start_ns),
            t_other_start_ns=other_from,
            cpu_percent=stats.cpu_percent_mean,
            rss_bytes=stats.rss_bytes_max,
            max_temp_c=stats.temp_c_max,
            cpu_mhz=stats.cpu_mhz_mean,
            load_prefill=self.load(step.t_start_ns, step.t_first_token_ns),
            load_decode=self.load(step.t_first_token_ns, step.t_decode_end_ns),
            load_tool=self.load(step.t_tool_start_ns, step.t_tool_end_ns),
        )
