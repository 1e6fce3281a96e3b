"""The one driver of every kind of run. A workload (a live suite, a replay, an accuracy run,
`serve`) supplies its units and how one unit runs; the driver does the rest once: the run
directory (or the resumed one), the session (store, meter, provenance, RunStarted), the
resume-aware loop over the units, and the finish.

Before `drive`, the caller loads the engine: what must be checked before a model loads
(a suite, a dataset, a context size) is each workload's own business."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..config import RunConfig
from ..events import EventSink, RunStarted, TaskRecord
from ..rundir import ResumePlan, make_run_dir
from .session import RunSession, build_provenance, device_provenance


class Workload(Protocol):
    """A kind of run. `suite` is what run.db and RunStarted record; `stop_ends_run`: False
    for a workload that runs until stopped (`serve`), whose stop is its normal end."""

    suite: str
    stop_ends_run: bool

    def label(self, model: Any) -> str:
        """The new run directory's name."""

    def store_config(self, config: RunConfig) -> dict[str, Any]:
        """What config.yaml records."""

    def provenance(self) -> dict[str, Any]:
        """The workload's own sections of the run's provenance, by name."""

    def unit_ids(self) -> tuple[str, ...]:
        """The units in their order: tasks, conversations, samples."""

    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> contextlib.AbstractContextManager[dict[str, TaskRecord]]:
        """Around the units: yields the records of units a resumed run keeps (`plan.done`,
        or those of them the workload can still use)."""

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        """One unit, its task record emitted; returns the record as stored (with energy)."""

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        """After each unit (`fresh`: run now, not kept from before a resume)."""

    def after_close(self, run_dir: Path) -> None:
        """Files made from the closed run.db (summaries), once the session has closed."""


@dataclass(frozen=True)
class Loaded:
    """What the caller prepared: the run's config, its model and loaded engine, and what
    the peak RSS the session reads covers (reset before the model loaded)."""

    config: RunConfig
    model: Any
    engine: Any
    peak_rss_scope: str


def drive(workload: Workload, loaded: Loaded, *, plan: ResumePlan | None = None,
          sinks: Sequence[EventSink] = (),
          stop_requested: Callable[[], object] = lambda: False) -> RunSession:
    """Run every unit of `workload` (the ones `plan` finished kept), metered and stored;
    returns the closed session (its run_dir, status and records)."""
    config, engine = loaded.config, loaded.engine
    run_dir = plan.run_dir if plan is not None else make_run_dir(Path(config.out),
                                                                 workload.label(loaded.model))
    device = device_provenance(engine)  # before the session: not inside the run's time
    session = RunSession.open(
        config, run_dir, workload.store_config(config), engine, sinks,
        stop_requested=stop_requested if workload.stop_ends_run else lambda: False,
        resume=plan, peak_rss_scope=loaded.peak_rss_scope,
        after_close=lambda: workload.after_close(run_dir))
    with session:
        provenance = build_provenance(config, loaded.model, engine, session.power, device,
                                      workload.provenance())
        units = workload.unit_ids()
        session.emit(RunStarted(run_dir.name, str(run_dir), workload.suite, units,
                                provenance.to_dict()))
        with workload.running(session, plan) as kept:
            for n, (unit, attempt) in enumerate(_schedule(units, kept, plan), 1):
                if workload.stop_ends_run and stop_requested():
                    break
                if unit in kept:  # finished before the stop: kept as it is
                    session.records.append(kept[unit])
                    workload.unit_done(unit, n, kept[unit], False)
                    continue
                with session.unit(unit, attempt):
                    record = workload.run_unit(session, unit, attempt)
                session.records.append(record)
                workload.unit_done(unit, n, record, True)
    return session


def _schedule(units: Sequence[str], kept: dict[str, TaskRecord], plan: ResumePlan | None
              ) -> Iterator[tuple[str, int]]:
    """Each unit with its attempt: the next one for a unit a resumed run cut short."""
    for unit in units:
        yield unit, (plan.next_attempt.get(unit, 0) if plan is not None and unit not in kept
                     else 0)


def finished_units(plan: ResumePlan | None) -> dict[str, TaskRecord]:
    """What a workload's `running` yields by default: every unit a resumed run finished."""
    return dict(plan.done) if plan is not None else {}


def model_label(model: Any) -> str:
    """A model's name in a run directory's name: the registry name, or a GGUF's or a served
    model's file stem (names hold dots, so not Path().stem on a name)."""
    name = model.name or (str(model.path) if model.path else "endpoint")
    return Path(name).stem if "/" in name or name.endswith(".gguf") else name
