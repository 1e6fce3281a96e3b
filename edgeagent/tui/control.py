"""The bridge between a run in its worker thread and the dashboard on the UI thread.

`LiveSink` only appends events to a deque (thread-safe, no lock, no UI work), so the run
never waits on the display; the app drains it on a timer. `RunControl` is the run's
`stop_requested`: the loop asks it before every step, which is where pause, skip and
stop take effect, so the step in progress always finishes and is recorded.
"""

from __future__ import annotations

import threading
from collections import deque

from ..events import Event, TaskRecord, TaskStarted


class LiveSink:
    def __init__(self) -> None:
        self._events: deque[Event] = deque()

    def emit(self, event: Event) -> None:
        self._events.append(event)

    def drain(self) -> list[Event]:
        out: list[Event] = []
        while self._events:
            out.append(self._events.popleft())
        return out


class RunControl:
    """Pause after this step, skip the current task, stop the run safely."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resume = threading.Event()
        self._resume.set()
        self.stop = False
        self.current_task: str | None = None
        self.skip_task: str | None = None
        self.waiting = False  # the run is held at a step boundary by a pause

    # -- what the keys do (UI thread) ---------------------------------------------------
    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    def toggle_pause(self) -> bool:
        if self.paused:
            self._resume.set()
        else:
            self._resume.clear()
        return self.paused

    def request_skip(self) -> str | None:
        with self._lock:
            self.skip_task = self.current_task
        self._resume.set()  # a paused task that is skipped ends now
        return self.skip_task

    def request_stop(self) -> None:
        self.stop = True
        self._resume.set()

    # -- what the run asks (worker thread) ----------------------------------------------
    def __call__(self) -> bool | str:
        if not self._resume.is_set() and not self.stop:
            self.waiting = True
            self._resume.wait()
            self.waiting = False
        if self.stop:
            return True
        with self._lock:
            if self.skip_task is not None and self.skip_task == self.current_task:
                return "skipped"
        return False

    def emit(self, event: Event) -> None:
        """Placed in the run's sinks: follows which task is current."""
        if isinstance(event, TaskStarted):
            with self._lock:
                self.current_task = event.task_id
        elif isinstance(event, TaskRecord):
            with self._lock:
                self.current_task = None
                if self.skip_task == event.task_id:
                    self.skip_task = None
