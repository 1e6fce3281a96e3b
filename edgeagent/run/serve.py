"""`edgeagent serve` as a run: the model loaded in process, a run directory opened, and every
request an agent sends recorded as a step of one unit (`serve`) until the server is stopped.

The in-process engine serves, not llama-server behind a proxy: its Generation carries the
exact prompt, reused and prefilled token counts and the monotonic edges of every phase, so a
served step is metered exactly like a live one, with no second process or hop on the path
(docs/agents.md says more).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import RunConfig
from ..engine import EngineFactory, build_engine
from ..events import EventSink, StepRecord, TaskRecord
from ..meter import reset_peak_rss
from ..rundir import ResumePlan
from ..serve import ChatServer, ChatService, StepRecorder
from .driver import Loaded, drive
from .session import RunSession, check_out_writable
from .task_records import task_record

SERVE_UNIT = "serve"


@dataclass(frozen=True)
class ServeResult:
    run_dir: Path
    status: str
    steps: int


def served_model_name(config: RunConfig, model: object) -> str:
    """The `model` id /v1/models lists: --served-model, else the model's registry name."""
    return config.served_model or getattr(model, "name", None) or "edgeagent"


@dataclass
class ServeWorkload:
    """One unit, the server, running until stopped: stopping is how a server ends, so the
    run is complete, not interrupted."""

    name: str
    port: int
    max_tokens: int
    stop_requested: Callable[[], bool]
    on_ready: Callable[[str, Path], None]
    suite: str = "serve"
    stop_ends_run: bool = False
    steps: int = 0

    def label(self, model: Any) -> str:
        return f"serve-{self.name}"[:80]

    def store_config(self, config: RunConfig) -> dict[str, Any]:
        return config.to_dict()

    def provenance(self) -> dict[str, Any]:
        return {"serve": {"served_model": self.name, "port": self.port,
                          "max_tokens": self.max_tokens}}

    def unit_ids(self) -> tuple[str, ...]:
        return (SERVE_UNIT,)

    @contextlib.contextmanager
    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> Iterator[dict[str, TaskRecord]]:
        yield {}

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        recorder = StepRecorder(session.sink, session.engine.count_tokens)
        service = ChatService(session.engine, recorder, self.name, self.max_tokens)
        t0 = time.monotonic_ns()
        recorder.start_task(SERVE_UNIT, 0, "requests served", "", None)
        with ChatServer(service, port=self.port) as server:
            self.on_ready(server.base_url, session.run_dir)
            while not self.stop_requested():
                recorder.pump(wait_s=0.1)  # the store is this thread's
        tally = recorder.end_task()
        self.steps = tally.steps
        session.emit(_served_record(session.collector.steps, (time.monotonic_ns() - t0) / 1e6))
        return session.collector.tasks[-1]

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        pass

    def after_close(self, run_dir: Path) -> None:
        pass


def execute_serve(
    config: RunConfig, *, port: int, sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool] = lambda: False,
    on_ready: Callable[[str, Path], None] = lambda url, run_dir: None,
    engine_factory: EngineFactory | None = None, max_tokens: int = 1024,
) -> ServeResult:
    """Serve until `stop_requested()`; `on_ready(base_url, run_dir)` once it listens."""
    check_out_writable(Path(config.out))
    peak_rss_scope = reset_peak_rss()
    model, engine = build_engine(config, engine_factory=engine_factory)
    workload = ServeWorkload(served_model_name(config, model), port, max_tokens,
                             stop_requested, on_ready)
    session = drive(workload, Loaded(config, model, engine, peak_rss_scope), sinks=sinks,
                    stop_requested=stop_requested)
    return ServeResult(session.run_dir, session.status, workload.steps)


def _served_record(steps: Sequence[StepRecord], wall_ms: float) -> TaskRecord:
    """The server's unit: its requests' totals and phase energies, as a live task's; ungraded."""
    own = [s for s in steps if s.task_id == SERVE_UNIT]
    return task_record(SERVE_UNIT, 0, own, wall_ms, outcome="served", termination="stopped",
                       grading_output="not graded",
                       termination_detail="the server was stopped")
