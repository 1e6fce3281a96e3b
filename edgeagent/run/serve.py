"""`edgeagent serve` as a run: the model loaded in process, a run directory opened, and every
request an agent sends recorded as a step of one unit (`serve`) until the server is stopped.

The in-process engine serves, not llama-server behind a proxy: its Generation carries the
exact prompt, reused and prefilled token counts and the monotonic edges of every phase, so a
served step is metered exactly like a live one, with no second process or hop on the path
(docs/agents.md says more).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..config import RunConfig
from ..engine.build import EngineFactory, build_engine
from ..events import EventSink, RunStarted, StepRecord, TaskRecord
from ..meter.host import reset_peak_rss
from ..results.store import make_run_dir
from ..serve.recorder import StepRecorder, TaskTally
from ..serve.server import ChatServer
from ..serve.service import ChatService
from .session import (
    RunSession,
    build_provenance,
    check_out_writable,
    device_provenance,
    task_costs,
)

SERVE_UNIT = "serve"


@dataclass(frozen=True)
class ServeResult:
    run_dir: Path
    status: str
    steps: int


def served_model_name(config: RunConfig, model: object) -> str:
    """The `model` id /v1/models lists: --served-model, else the model's registry name."""
    return config.served_model or getattr(model, "name", None) or "edgeagent"


def execute_serve(
    config: RunConfig, *, port: int, sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool] = lambda: False,
    on_ready: Callable[[str, Path], None] = lambda url, run_dir: None,
    engine_factory: EngineFactory | None = None, max_tokens: int = 1024,
) -> ServeResult:
    """Serve until `stop_requested()`; `on_ready(base_url, run_dir)` once it listens."""
    out = Path(config.out)
    check_out_writable(out)
    peak_rss_scope = reset_peak_rss()
    model, engine = build_engine(config, engine_factory=engine_factory)
    name = served_model_name(config, model)
    run_dir = make_run_dir(out, f"serve-{name}"[:80])
    device = device_provenance(engine)
    # stopping is how a server ends: the run is complete, not interrupted
    with RunSession.open(config, run_dir, config.to_dict(), engine, sinks,
                         peak_rss_scope=peak_rss_scope) as session:
        provenance = build_provenance(config, model, engine, session.power, device)
        provenance["serve"] = {"served_model": name, "port": port, "max_tokens": max_tokens}
        session.emit(RunStarted(run_dir.name, str(run_dir), "serve", (SERVE_UNIT,),
                                provenance))
        recorder = StepRecorder(session.sink, engine.count_tokens)
        service = ChatService(engine, recorder, name, max_tokens)
        t0 = time.monotonic_ns()
        with session.unit(SERVE_UNIT, 0):
            recorder.start_task(SERVE_UNIT, 0, "requests served", "", None)
            with ChatServer(service, port=port) as server:
                on_ready(server.base_url, run_dir)
                while not stop_requested():
                    recorder.pump(wait_s=0.1)  # the store is this thread's
            tally = recorder.end_task()
            wall_ms = (time.monotonic_ns() - t0) / 1e6
            session.emit(_served_record(session.collector.steps, tally, wall_ms))
            session.records.append(session.collector.tasks[-1])
    return ServeResult(run_dir, session.status, tally.steps)


def _served_record(steps: Sequence[StepRecord], tally: TaskTally,
                   wall_ms: float) -> TaskRecord:
    """The server's unit: its requests' totals and phase energies, as a live task's; ungraded."""
    own = [s for s in steps if s.task_id == SERVE_UNIT]
    return TaskRecord(
        task_id=SERVE_UNIT, attempt=0, outcome="served", termination="stopped",
        steps=len(own), wall_ms=wall_ms, context_tokens_final=tally.final_context_tokens,
        **task_costs(own), grading_output="not graded",
        termination_detail="the server was stopped",
    )
