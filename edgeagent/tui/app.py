"""The live dashboard of `edgeagent run` on a terminal.

The run goes on in a daemon worker thread and only hands events to a LiveSink; the app
drains them on a 10 Hz timer, so the run never waits for the screen and a burst of tokens
costs one repaint. Keys act through RunControl at the next step boundary.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..events import EventSink, FanOut
from .control import LiveSink, RunControl
from .state import DashboardState
from .widgets import RunHeader, StepPanel, TaskTable, charts_for

CSS_PATH = Path(__file__).with_name("styles.tcss")
TICK_S = 0.1  # the step panel and clocks: at most ten repaints a second
CHARTS_S = 0.5  # the charts: at most two a second, however fast steps end

HELP = """\
[b]edgeagent dashboard[/b]

  [b]p[/b]   pause after this step (again: resume). A pause counts in the
      task's wall time and its between-steps ("other") energy;
      the step records themselves are untouched.
  [b]s[/b]   skip this task after this step (termination "skipped",
      not graded) and go on with the next one
  [b]q[/b]   stop safely: finish this step, record it, mark the run
      interrupted and exit (Ctrl-C does the same)
  [b]q[/b] twice, or Ctrl-Q: leave now; committed steps are kept
  [b]?[/b]   this help (Esc closes)

[b]charts[/b]  context: ▒ reused from the KV cache, █ new (prefilled)
        time per step: █ prefill ▓ decode ▒ tool ░ retrieval
        power: the device total over the last minute, each column
        filled by the phase it was in (· between steps)
[b]task marks[/b]  ▶ running ✓ resolved ✗ unresolved ! error » skipped
            ■ interrupted · queued
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "close")]

    def compose(self) -> ComposeResult:
        yield Static(HELP, id="help")

    def action_dismiss(self) -> None:  # type: ignore[override]
        self.dismiss()


@dataclass
class Outcome:
    result: Any = None  # what the run function returned
    error: BaseException | None = None
    aborted: bool = False  # left before the run finished


class DashboardApp(App[Outcome]):
    """`start(sink, control)` runs in the worker thread: a real run (execute_run), or a
    recorded event stream replayed into the sink."""

    CSS_PATH = CSS_PATH
    TITLE = "edgeagent"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("p", "pause", "pause after step"),
        Binding("s", "skip", "skip task"),
        Binding("q", "stop", "stop safely"),
        Binding("q", "leave", "exit"),  # the same key once the run is over: see check_action
        Binding("ctrl+c", "stop", "stop safely", show=False, priority=True),
        Binding("ctrl+q", "abort", "leave now", show=False, priority=True),
        Binding("question_mark", "help", "help"),
    ]

    def __init__(
        self,
        start: Callable[[EventSink, RunControl], Any],
        *,
        exit_when_done: bool = False,
    ) -> None:
        super().__init__()
        self.start = start
        self.exit_when_done = exit_when_done
        self.state = DashboardState()
        self.control = RunControl()
        self.sink = LiveSink()
        self.outcome = Outcome()
        self._thread: threading.Thread | None = None
        self._done = False
        self._exit_sent = False
        self._drawn_revision = -1
        self._drawn_at = self._table_at = 0.0

    # -- layout -------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        st = self.state
        # held by reference: the tick must reach them while the help screen is on top
        self.header = RunHeader(st, self.status_word, id="header")
        self.table = TaskTable(st, id="tasks")
        self.panel = StepPanel(st, id="step")
        self.charts = charts_for(st, lambda: st.task_steps(), window_s=60.0)
        yield self.header
        yield self.table
        yield self.panel
        with Horizontal(id="charts"):
            yield from self.charts
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#step").border_title = "current step"
        self.query_one("#charts").border_title = "this task"
        self._thread = threading.Thread(target=self._work, name="edgeagent-run", daemon=True)
        self._thread.start()
        self.set_interval(TICK_S, self.tick)

    def _work(self) -> None:
        try:
            self.outcome.result = self.start(FanOut(self.control, self.sink), self.control)
        except BaseException as exc:  # noqa: BLE001 - handed to the CLI after the app exits
            self.outcome.error = exc

    # -- the 10 Hz tick -----------------------------------------------------------------
    def tick(self) -> None:
        if not self.is_running or self._exit_sent:
            return
        changed = self.state.feed(self.sink.drain())
        finished = self._thread is not None and not self._thread.is_alive()
        if finished and not self._done:
            self.state.feed(self.sink.drain())  # what arrived while the thread ended
            self._done = changed = True
            self._drawn_at = 0.0
            self.refresh_bindings()
        if (self.state.revision != self._drawn_revision
                and time.monotonic() - self._drawn_at >= CHARTS_S):
            self.refresh_widgets()
        elif changed or self.state.phase is not None:
            # only live markers or the clocks moved: the step panel every tick, the running
            # task's wall time once a second (a table repaint costs more than the panel)
            self.panel.refresh()
            self.header.refresh()
            if time.monotonic() - self._table_at >= 1.0:
                self._table_at = time.monotonic()
                self.table.sync()
        if self._done and (self.exit_when_done or self.control.stop
                           or self.outcome.error is not None):
            self._exit_sent = True
            self.exit(self.outcome)

    def refresh_widgets(self) -> None:
        self._drawn_revision = self.state.revision
        self._drawn_at = time.monotonic()
        self.table.sync()
        self.table.follow(self.state.current_task)
        self.header.refresh(layout=True)  # the rails line may have come or gone
        for widget in (self.panel, *self.charts):
            widget.refresh()

    def status_word(self) -> str:
        if self._done:
            if self.outcome.error is not None:
                return "FAILED"
            status = self.state.finished.status if self.state.finished else "ended"
            return f"{status.upper()} - q to exit"
        if self.control.stop:
            return "STOPPING after this step"
        if self.control.paused:
            return "PAUSED" if self.control.waiting else "PAUSING after this step"
        if self.control.skip_task:
            return f"SKIPPING {self.control.skip_task}"
        return "RUNNING" if self.state.run_id else "STARTING"

    # -- keys ---------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers what a key does now: pause, skip and stop while the run goes
        on, only exit once it is over."""
        if action in ("pause", "skip", "stop"):
            return not self._done
        if action == "leave":
            return self._done
        return True

    def action_leave(self) -> None:
        self.exit(self.outcome)

    def action_pause(self) -> None:
        if not self._done:
            paused = self.control.toggle_pause()
            self.notify("pausing after this step" if paused else "resumed", timeout=2)
            self.refresh_widgets()

    def action_skip(self) -> None:
        if not self._done:
            task = self.control.request_skip()
            self.notify(f"skipping {task} after this step" if task else "no task running",
                        timeout=2)
            self.refresh_widgets()

    def action_stop(self) -> None:
        if self._done:
            self.exit(self.outcome)
        elif self.control.stop:
            self.action_abort()  # a second q: do not wait for the step
        else:
            self.control.request_stop()
            self.notify("stopping after this step (q again: leave now)", timeout=3)
            self.refresh_widgets()

    def action_abort(self) -> None:
        self.control.request_stop()
        self.outcome.aborted = not self._done
        self.exit(self.outcome)

    def action_help(self) -> None:
        self.push_screen(HelpScreen())
