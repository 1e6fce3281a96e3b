"""Served requests as the steps of a run: each chat completion becomes a StepRecord exactly like
a live step, and the time from one response to the next request is the agent's own time (its
tool wait, in the step's tool phase).

A step's tool interval stays open until the agent's next request (or the task's end) closes
it; then the step is emitted to the session's sink, which meters, stores and prints it. Before
its answer goes out, the step is stored once already as it stands (a StepAnswered, empty tool
interval): a crash while the agent works cannot take an answer the agent has received. The
agent's tool results are read back from that next request: whatever it appended after the
assistant turn is the step's observation.

The recorder also keeps the task's limits: past the step limit it refuses requests and says
so, so the runner can stop the agent and record `max_steps`.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from ..engine import Generation, Message
from ..events import EventSink, StepAnswered, StepRecord, TaskStarted, step_record

T = TypeVar("T")
# how long an answer waits for its step to be stored before it goes out regardless (the
# owner thread is between pumps for at most its poll interval, or is ending the task)
STORE_WAIT_S = 2.0


@dataclass(frozen=True)
class _AgentOutcome:
    """The step's `tool` outcome as the server sees it: the agent's own, not observed."""

    exit_code: int | None = None
    error: bool = False
    retrieval: None = None


@dataclass(frozen=True)
class _Pending:
    gen: Generation
    step: int
    wall_start: float
    action_name: str | None
    action_args: dict[str, object] | None
    t_response_end_ns: int


@dataclass(frozen=True)
class TaskTally:
    """What the recorder saw of one task, for its TaskRecord."""

    steps: int
    final_context_tokens: int
    limit_hit: str | None  # max_steps | context_overflow, the first limit the agent reached
    detail: str | None


class StepRecorder:
    """Thread-safe: the server's handler threads call `request_started` and `record`; the
    thread that owns the run (and its store, whose SQLite connection is that thread's) calls
    `run_agent` (or `start_task`, `pump` and `end_task`), which hands the finished steps to
    the sink."""

    def __init__(self, sink: EventSink, count_tokens: Callable[[str], int]) -> None:
        self._sink = sink
        # each with the Event set once the sink has it (None: nobody waits)
        self._ready: queue.SimpleQueue[tuple[StepRecord | StepAnswered,
                                             threading.Event | None]] = queue.SimpleQueue()
        self._count_tokens = count_tokens
        self._lock = threading.Lock()
        self._task: tuple[str, int] | None = None
        # which task a request belongs to: a killed agent's last request may finish decoding
        # after the next task started, and must not become that task's step
        self.epoch = 0
        self._pending: _Pending | None = None
        self._steps = 0
        self._context = 0
        self._limit_hit: str | None = None
        self._detail: str | None = None
        self._max_steps: int | None = None
        self.limit_reached = threading.Event()  # the runner stops the agent when set

    # -- the runner's side ----------------------------------------------------------------
    def start_task(self, task_id: str, attempt: int, title: str, issue: str,
                   max_steps: int | None) -> None:
        with self._lock:
            self._task = (task_id, attempt)
            self.epoch += 1
            self._pending = None
            self._steps = self._context = 0
            self._limit_hit = self._detail = None
            self._max_steps = max_steps
            self.limit_reached.clear()
            self._sink.emit(TaskStarted(task_id, attempt, title, "", issue))

    def end_task(self) -> TaskTally:
        """Emits the step still waiting for its tool interval (ending now) and closes the
        task; later requests are refused until the next task starts."""
        with self._lock:
            self._flush(time.monotonic_ns(), "")
            tally = TaskTally(self._steps, self._context, self._limit_hit, self._detail)
            self._task = None
        self.pump()
        return tally

    def run_agent(self, task_id: str, attempt: int, title: str, issue: str,
                  max_steps: int | None, agent: Callable[[threading.Event], T],
                  stop_requested: Callable[[], object] = lambda: False) -> tuple[T, TaskTally]:
        """One task of an external agent: `agent(cancel)` runs in a worker thread and stops
        when `cancel` is set (a limit, a stop); this thread owns the store and records the
        steps as they come. Its result and the task's tally."""
        self.start_task(task_id, attempt, title, issue, max_steps)
        try:
            with ThreadPoolExecutor(1, thread_name_prefix="edgeagent-agent") as pool:
                result = self._wait(pool.submit(agent, self.limit_reached), stop_requested)
        finally:
            tally = self.end_task()
        return result, tally

    def pump(self, wait_s: float = 0.0) -> int:
        """Emit the steps finished since the last call (the owner's thread); how many. With
        `wait_s`, wait that long for the first one: a step is stored as soon as it is ready,
        not at the next poll, so a kill can take no more than the step still held for its
        tool interval."""
        count = 0
        while True:
            try:
                event, stored = self._ready.get(timeout=wait_s) if wait_s > 0 and not count \
                    else self._ready.get_nowait()
            except queue.Empty:
                return count
            try:
                self._sink.emit(event)
            finally:
                if stored is not None:
                    stored.set()
            count += 1

    def _wait(self, job: Future[T], stop_requested: Callable[[], object] = lambda: False,
             interval_s: float = 0.1) -> T:
        """The job's result (an agent running in another thread that watches
        `limit_reached`), pumping steps meanwhile. A stop asked for (Ctrl-C, SIGTERM) ends
        the agent now, as `interrupted`; so does an abort raised here (a second Ctrl-C)."""
        try:
            while not job.done():
                self.pump(wait_s=interval_s)
                if stop_requested():
                    self.interrupt()
            self.pump()
            return job.result()
        except BaseException:
            self.interrupt()  # the agent's thread sees it and stops its process
            raise

    def interrupt(self) -> None:
        with self._lock:
            self._hit("interrupted", "stopped by the user")

    # -- the server's side ----------------------------------------------------------------
    def request_started(self, messages: Sequence[Message], arrived_ns: int) -> str | None:
        """A request arrived at `arrived_ns`: the previous step's tool interval ends there.
        Returns why the request must be refused (no task running, the step limit reached),
        or None. Called under the engine's lock: counting the observation's tokens uses the
        engine's tokenizer."""
        with self._lock:
            if self._task is None:
                return "no task is running on this server"
            self._flush(arrived_ns, _observation_after_last_answer(messages))
            limit = self._max_steps
            if limit is not None and self._steps >= limit:
                self._hit("max_steps", f"the step limit, {limit} requests")
                return f"the task's step limit ({limit} requests) is reached"
            return None

    def refuse(self, limit: str, detail: str) -> None:
        """A request the engine could not serve for a limit of the task (context)."""
        with self._lock:
            self._hit(limit, detail)

    def record(self, epoch: int, gen: Generation, wall_start: float, action_name: str | None,
               action_args: dict[str, object] | None) -> None:
        """A request of task `epoch` was decoded and its answer is about to go out: stored as
        it stands (waits for the owner's thread to store it, at most STORE_WAIT_S), then held
        until the next request closes its tool interval. Dropped when that task is over."""
        now = time.monotonic_ns()
        stored = threading.Event()
        with self._lock:
            if self._task is None or epoch != self.epoch:
                return
            pending = _Pending(gen, self._steps, wall_start, action_name, action_args, now)
            self._pending = pending
            self._steps += 1
            self._context = gen.context_tokens + len(gen.tokens)
            task_id, attempt = self._task
            self._ready.put((StepAnswered(_step(pending, task_id, attempt, now, now, "", 0)),
                             stored))
        stored.wait(STORE_WAIT_S)

    def _hit(self, limit: str, detail: str) -> None:
        if self._limit_hit is None:
            self._limit_hit, self._detail = limit, detail
        self.limit_reached.set()

    def _flush(self, t_end_ns: int, observation: str) -> None:
        pending, self._pending = self._pending, None
        if pending is None or self._task is None:
            return
        task_id, attempt = self._task
        start = min(pending.t_response_end_ns, t_end_ns)
        self._ready.put((_step(pending, task_id, attempt, start, t_end_ns, observation,
                               self._count_tokens(observation) if observation else 0), None))


def _step(p: _Pending, task_id: str, attempt: int, tool_start: int, tool_end: int,
          observation: str, observation_tokens: int) -> StepRecord:
    return step_record(
        p.gen, task_id=task_id, attempt=attempt, step=p.step, wall_start=p.wall_start,
        action_name=p.action_name, action_args=p.action_args, format_error=None,
        result=_AgentOutcome(), observation=observation, truncated=False,
        observation_tokens=observation_tokens, t_tool_start=tool_start, t_tool_end=tool_end,
    )


def _observation_after_last_answer(messages: Sequence[Message]) -> str:
    """What the agent appended after the last assistant turn: its tool results and any
    follow-up text, i.e. what the model is about to read."""
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
    if last is None:
        return ""
    return "\n".join(m.text for m in messages[last + 1:] if m.text)
