"""What the dashboard shows, folded from the run's events: plain data, no textual.

The live dashboard feeds it the events of a running run; the browser feeds it the events
rebuilt from a run directory, so both show the same numbers the same way.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..events import (
    Event,
    PhaseStarted,
    RunFinished,
    RunStarted,
    SampleBatch,
    StepRecord,
    TaskRecord,
    TaskStarted,
    TokenDelta,
)
from ..rundir import Provenance

# the phases a step's time and the power trace are split into, in drawing order
PHASES = ("prefill", "decode", "tool", "retrieval")
# power samples kept for the rolling trace: 10 minutes at the default 20 Hz
MAX_POWER_POINTS = 12_000


@dataclass
class TaskView:
    task_id: str
    title: str = ""
    # queued | running | resolved | unresolved | error | skipped | interrupted
    status: str = "queued"
    steps: int = 0
    wall_ms: float | None = None
    energy_j: float | None = None
    energy_null_reason: str | None = None
    termination: str | None = None
    started_ns: int | None = None  # monotonic, for the live wall clock of a running task
    record: TaskRecord | None = None


@dataclass
class PowerPoint:
    t_ns: int
    watts: float


@dataclass(frozen=True)
class RailPoint:
    """Every metered rail's watts and the temperature at one sample (jtop's per-rail view)."""

    t_ns: int
    watts: tuple[tuple[str, float], ...]  # (rail label, watts) for each rail read
    temp_c: float | None


@dataclass(frozen=True)
class RailSummary:
    """The rails' mean watts and the mean temperature over a span, for one line of text."""

    watts: tuple[tuple[str, float], ...]
    temp_c: float | None

    def text(self) -> str:
        parts = [f"{name} {w:.2f} W" for name, w in self.watts]
        if self.temp_c is not None:
            parts.append(f"{self.temp_c:.0f} °C")
        return " · ".join(parts)


@dataclass
class PowerInfo:
    """Which sources make the device total and how to turn a reading into watts."""

    label: str | None = None
    scope: str | None = None
    sources: tuple[str, ...] = ()
    counters: frozenset[str] = frozenset()  # sources whose readings are cumulative joules
    # every metered source (source name, rail label): the total's and the others (a Jetson's
    # CPU/GPU and SoC rails beside the module input)
    rails: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_provenance(cls, provenance: Provenance) -> PowerInfo:
        total = provenance.power_total
        sources = provenance.power_sources
        counters = frozenset(s.get("name") for s in sources if s.get("kind") == "counter")
        rails = tuple(
            (s["name"], s.get("rail") or s["name"].split(":", 1)[-1])
            for s in sources if s.get("name")
        )
        return cls(total.get("label"), total.get("scope"), tuple(total.get("sources", ())),
                   counters, rails)


def task_status(record: TaskRecord) -> str:
    if record.termination in ("skipped", "interrupted") and record.outcome != "error":
        return record.termination
    return record.outcome


@dataclass
class DashboardState:
    run_id: str | None = None
    run_dir: str | None = None
    suite: str | None = None
    model: str | None = None
    device: str | None = None
    threads: Any = None
    power: PowerInfo = field(default_factory=PowerInfo)
    tasks: dict[str, TaskView] = field(default_factory=dict)
    steps: dict[str, list[StepRecord]] = field(default_factory=dict)
    prompts: dict[str, TaskStarted] = field(default_factory=dict)
    current_task: str | None = None
    # the step in progress: phase, since when (monotonic ns), streamed text so far
    phase: str | None = None
    phase_since_ns: int | None = None
    live_step: int | None = None
    live_text: str = ""
    # (t_ns, phase) of the live phase markers: the phase of samples newer than the last step
    phase_marks: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=64))
    power_points: deque[PowerPoint] = field(
        default_factory=lambda: deque(maxlen=MAX_POWER_POINTS))
    rail_points: deque[RailPoint] = field(
        default_factory=lambda: deque(maxlen=MAX_POWER_POINTS))
    finished: RunFinished | None = None
    events_seen: int = 0
    # bumped by every event but the live markers: the charts and the table need redrawing
    revision: int = 0
    _last_counter: dict[str, tuple[int, float]] = field(default_factory=dict)

    # -- folding events -----------------------------------------------------------------
    def feed(self, events: Iterable[Event]) -> bool:
        changed = False
        for event in events:
            self.apply(event)
            changed = True
        return changed

    def apply(self, event: Event) -> None:
        self.events_seen += 1
        if not isinstance(event, (TokenDelta, PhaseStarted)):
            self.revision += 1
        if isinstance(event, TokenDelta):
            if event.task_id == self.current_task and event.step == self.live_step:
                self.live_text += event.text
        elif isinstance(event, PhaseStarted):
            self.current_task = event.task_id
            if event.step != self.live_step:
                self.live_text = ""
            self.live_step = event.step
            self.phase, self.phase_since_ns = event.phase, event.t_ns
            self.phase_marks.append((event.t_ns, event.phase))
        elif isinstance(event, StepRecord):
            self.steps.setdefault(event.task_id, []).append(event)
            view = self._task(event.task_id)
            view.steps = len(self.steps[event.task_id])
            self.phase = self.phase_since_ns = None
            self.live_text = ""
        elif isinstance(event, SampleBatch):
            self._samples(event)
        elif isinstance(event, TaskStarted):
            view = self._task(event.task_id)
            view.title, view.status = event.title, "running"
            view.started_ns = time.monotonic_ns()
            self.prompts[event.task_id] = event
            self.steps[event.task_id] = []
            self.current_task = event.task_id
            self.live_step, self.live_text = None, ""
        elif isinstance(event, TaskRecord):
            view = self._task(event.task_id)
            view.status = task_status(event)
            view.steps, view.wall_ms = event.steps, event.wall_ms
            view.energy_j, view.energy_null_reason = event.energy_j, event.energy_null_reason
            view.termination, view.record = event.termination, event
            self.phase = self.phase_since_ns = None
        elif isinstance(event, RunStarted):
            self._run_started(event)
        elif isinstance(event, RunFinished):
            self.finished = event
            self.phase = self.phase_since_ns = None

    def _task(self, task_id: str) -> TaskView:
        if task_id not in self.tasks:
            self.tasks[task_id] = TaskView(task_id)
        return self.tasks[task_id]

    def _run_started(self, event: RunStarted) -> None:
        self.run_id, self.run_dir, self.suite = event.run_id, event.run_dir, event.suite
        provenance = Provenance.from_dict(event.provenance)
        model = provenance.model
        self.model = model.get("name") or model.get("path")
        self.threads = model.get("n_threads")
        self.device = _device_label(provenance.device)
        self.power = PowerInfo.from_provenance(provenance)
        for task_id in event.task_ids:
            self._task(task_id)

    def _samples(self, batch: SampleBatch) -> None:
        names = {name for name, _ in self.power.rails} | set(self.power.sources)
        for sample in batch.samples:
            t_ns, temp_c, readings = sample[0], sample[3], dict(sample[5])
            watts: dict[str, float] = {}
            for name in names:
                value = readings.get(name)
                if value is None:
                    continue
                if name in self.power.counters:
                    prev = self._last_counter.get(name)
                    self._last_counter[name] = (t_ns, value)
                    # a counter gives power only as a difference; a wrap or reset gives none
                    if prev is None or t_ns <= prev[0] or value < prev[1]:
                        continue
                    watts[name] = (value - prev[1]) / ((t_ns - prev[0]) / 1e9)
                else:
                    watts[name] = value
            if self.power.sources and all(name in watts for name in self.power.sources):
                self.power_points.append(
                    PowerPoint(t_ns, sum(watts[name] for name in self.power.sources)))
            rails = tuple((label, watts[name]) for name, label in self.power.rails
                          if name in watts)
            if rails or temp_c is not None:
                self.rail_points.append(RailPoint(t_ns, rails, temp_c))

    # -- questions the widgets ask ------------------------------------------------------
    @property
    def done(self) -> int:
        return sum(1 for t in self.tasks.values() if t.record is not None)

    @property
    def resolved(self) -> int:
        return sum(1 for t in self.tasks.values() if t.status == "resolved")

    def rail_summary(self, start_ns: int | None = None,
                     end_ns: int | None = None) -> RailSummary | None:
        """The rails' mean watts and mean temperature over [start_ns, end_ns] (default: the
        last second sampled); None where the device has no rails beyond the one total and no
        temperature sensor, since the header already shows the total."""
        points = self.rail_points
        if not points:
            return None
        if start_ns is None and end_ns is None:
            end_ns = points[-1].t_ns
            start_ns = end_ns - 1_000_000_000
        # walk back from the newest point (the header asks ten times a second): the span,
        # then, before it, the last reading of any rail the span has none of; a rail read
        # less often than the total holds its last reading, as a meter's display would
        labels = {label for _, label in self.power.rails}
        sums: dict[str, list[float]] = {}
        held: dict[str, float] = {}
        temps: list[float] = []
        for p in reversed(points):
            if end_ns is not None and p.t_ns > end_ns:
                continue
            if start_ns is None or p.t_ns >= start_ns:
                for name, w in p.watts:
                    sums.setdefault(name, []).append(w)
                if p.temp_c is not None:
                    temps.append(p.temp_c)
                continue
            for name, w in p.watts:
                held.setdefault(name, w)
            if labels <= sums.keys() | held.keys():
                break
        for name, w in held.items():
            sums.setdefault(name, [w])
        order = [label for _, label in self.power.rails]
        sums = dict(sorted(sums.items(), key=lambda kv: order.index(kv[0])
                           if kv[0] in order else len(order)))
        if len(sums) <= 1 and not temps:
            return None
        return RailSummary(tuple((name, sum(v) / len(v)) for name, v in sums.items()),
                           sum(temps) / len(temps) if temps else None)

    def phase_elapsed_s(self, now_ns: int | None = None) -> float | None:
        if self.phase_since_ns is None:
            return None
        return ((now_ns or time.monotonic_ns()) - self.phase_since_ns) / 1e9

    def task_steps(self, task_id: str | None = None) -> list[StepRecord]:
        return self.steps.get(task_id or self.current_task or "", [])

    def all_steps(self) -> list[StepRecord]:
        return [s for steps in self.steps.values() for s in steps]

    def phase_at(self, t_ns: int) -> str:
        """The phase at a moment: from the step edges once the step is recorded, from the
        live markers while it runs."""
        steps = self.all_steps()
        phase = phase_of(t_ns, steps)
        if phase != "other":
            return phase
        last_end = max((s.t_tool_end_ns for s in steps), default=0)
        if t_ns < last_end:
            return phase
        marks = [m for m in self.phase_marks if last_end <= m[0] <= t_ns]
        return marks[-1][1] if marks else phase


def phase_of(t_ns: int, steps: Sequence[StepRecord]) -> str:
    """The phase a moment belongs to, from the recorded step edges; `other` between steps."""
    for s in steps:
        if s.t_start_ns <= t_ns < s.t_first_token_ns:
            return "prefill"
        if s.t_first_token_ns <= t_ns < s.t_decode_end_ns:
            return "decode"
        if s.t_tool_start_ns <= t_ns < s.t_tool_end_ns:
            return "tool"
    return "other"


def _device_label(device: Mapping[str, Any]) -> str | None:
    """A board's model where the device names one (Jetson, Pi), else CPU and core count."""
    name = device.get("device_model") or device.get("cpu_model") or device.get("machine")
    if not name:
        return None
    cores = device.get("cpu_logical_cores")
    return f"{name} x{cores}" if cores and not device.get("device_model") else str(name)
