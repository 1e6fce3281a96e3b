"""The dashboard's pieces, shared by the live run and the browser of stored runs.

Each widget draws from a DashboardState (and, in the browser, the task and step picked);
none of them holds numbers of its own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from rich.text import Text
from textual.widget import Widget
from textual.widgets import DataTable, Static

from ..events import StepRecord
from .charts import PHASE_SERIES, context_chart, power_chart, time_chart
from .state import DashboardState, RailSummary, TaskView

# a word and a mark for every state, so that colour is never the only signal
STATUS = {
    "queued": ("·", "queued", "grey50"),
    "running": ("▶", "running", "bold #61afef"),
    "resolved": ("✓", "resolved", "bold green"),
    "unresolved": ("✗", "unresolved", "#e06c75"),
    "error": ("!", "error", "bold red"),
    "skipped": ("»", "skipped", "#d19a66"),
    "interrupted": ("■", "interrupted", "#d19a66"),
}


def status_text(status: str) -> Text:
    mark, word, style = STATUS.get(status, ("?", status, ""))
    return Text(f"{mark} {word}", style=style)


def fmt_s(ms: float | None) -> str:
    return "-" if ms is None else f"{ms / 1000:.1f}"


def fmt_j(joules: float | None) -> str:
    return "n/a" if joules is None else f"{joules:.1f}"


def action_text(step: StepRecord) -> str:
    if step.action_name is None:
        return f"FORMAT ERROR: {step.format_error}"
    args = json.dumps(step.action_args or {}, ensure_ascii=False)
    return f"{step.action_name} {args}"


def step_numbers(s: StepRecord) -> str:
    tok_s = (
        f"{(s.decoded_tokens - 1) / (s.decode_ms / 1000):.1f} tok/s"
        if s.decode_ms > 0 and s.decoded_tokens > 1 else "- tok/s"
    )
    exit_code = "" if s.tool_exit_code is None else f" exit {s.tool_exit_code}"
    # what other processes and steal took while the model ran (results/interference.py)
    share = s.load_decode.share
    others = f" · others {share:.0%} of CPUs" if share is not None else ""
    return (
        f"ctx {s.context_tokens} ({s.reused_tokens} reused) · prefill {s.prefill_tokens} tok "
        f"{s.prefill_ms:.0f} ms · decode {s.decoded_tokens} tok {tok_s} · "
        f"tool {s.tool_ms:.0f} ms{exit_code}{others}"
    )


def _last_lines(text: str, n: int, width: int) -> str:
    lines = [line[:width] for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:]) if lines else ""


def _observation_line(text: str, width: int) -> str:
    """The observation's head ("Result of run:") with the first line of what follows."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":") and len(lines) > 1:
        first = f"{first} {lines[1]}"
    more = " …" if len(lines) > 2 or len(first) > width else ""
    return first[:width] + more


class RunHeader(Static):
    """Model, device, power source and scope, suite progress, and what the run is doing;
    a third line with every rail's watts and the temperature where the device has them.
    `rails` gives that line's words and numbers (live: the last second; a stored run: the
    picked task's mean)."""

    def __init__(self, state: DashboardState, status: Callable[[], str],
                 rails: Callable[[], tuple[str, RailSummary | None]] | None = None,
                 **kw) -> None:
        super().__init__(**kw)
        self.state = state
        self.status = status
        self.rails = rails or (lambda: ("now", state.rail_summary()))

    def render(self) -> Text:
        st = self.state
        power = (f"[{st.power.scope}] {st.power.label}" if st.power.label
                 else "none (energy not measured)")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {self.status()} ", style="reverse bold")
        text.append(f" {st.suite or '-'}: {st.done}/{len(st.tasks)} tasks done, "
                    f"{st.resolved} resolved · {st.run_id or ''}\n")
        # power before the device: at 80 columns the line's end is cut, and what meters the
        # run matters more than the CPU's name
        text.append(f" model {st.model or '-'} · power {power} · {st.device or '-'}")
        when, rails = self.rails()
        if rails is not None:
            text.append(f"\n rails ({when}): ", style="bold")
            text.append(rails.text())
        return text


class TaskTable(DataTable):
    """One row per task: state (mark and word), steps, wall time, energy. `compact` (two
    tables side by side in compare) shows the state by its mark alone, so that wall time and
    energy still fit in half of 80 columns."""

    COLUMNS = ("task", "status", "steps", "wall s", "energy J")

    def __init__(self, state: DashboardState, compact: bool = False, **kw) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kw)
        self.state = state
        self.compact = compact

    def on_mount(self) -> None:
        for name in self.COLUMNS:
            label = {"status": "", "energy J": "J"}.get(name, name) if self.compact else name
            self.add_column(label, key=name)
        self.sync()

    def _cells(self, view: TaskView) -> list[Text | str]:
        wall = view.wall_ms
        if view.status == "running" and view.started_ns is not None and wall is None:
            wall = (time.monotonic_ns() - view.started_ns) / 1e6
        status = status_text(view.status)
        if self.compact:
            status = Text(status.plain.split(" ", 1)[0], style=status.style)
        return [view.task_id, status, str(view.steps), fmt_s(wall), fmt_j(view.energy_j)]

    def sync(self) -> None:
        for task_id, view in self.state.tasks.items():
            cells = self._cells(view)
            if task_id not in self.rows:
                self.add_row(*cells, key=task_id)
                continue
            for name, value in zip(self.COLUMNS, cells, strict=True):
                if str(self.get_cell(task_id, name)) != str(value):
                    self.update_cell(task_id, name, value, update_width=True)

    def follow(self, task_id: str | None) -> None:
        """Put the cursor on `task_id`: the live dashboard highlights the task whose step
        the panel below shows."""
        if task_id is None or task_id not in self.rows:
            return
        row = self.get_row_index(task_id)
        if row != self.cursor_row:
            self.move_cursor(row=row, animate=False)


class StepPanel(Static):
    """The step in progress: phase and its timer, the streamed action, the last observation;
    or, in the browser, the picked step."""

    def __init__(self, state: DashboardState, **kw) -> None:
        super().__init__(**kw)
        self.state = state

    def render(self) -> Text:
        st = self.state
        width = max(20, self.content_size.width - 9)
        text = Text(no_wrap=True, overflow="ellipsis")
        task = st.current_task
        steps = st.task_steps(task)
        last = steps[-1] if steps else None
        if task is None:
            text.append("waiting for the first task (checking tasks, loading the model)")
            return text
        elapsed = st.phase_elapsed_s()
        if st.phase is not None and elapsed is not None:
            series = PHASE_SERIES.get(st.phase, PHASE_SERIES["other"])
            text.append(f"{task} · step {(st.live_step or 0) + 1} · ")
            text.append(f"{series.glyph} {st.phase.upper()} {elapsed:5.1f} s",
                        style=f"bold {series.style}")
            text.append("  (prefill > decode > tool)\n")
        else:
            done = st.tasks.get(task)
            state = done.status if done else "between steps"
            text.append(f"{task} · {len(steps)} steps · {state}\n")
        streamed = st.live_text if st.phase in ("decode", "tool") else ""
        action = streamed or (last.raw_output if last else "")
        text.append("action ▸ ", style="bold")
        text.append((_last_lines(action, 1, width) or "-") + "\n")
        text.append("obs    ▸ ", style="bold")
        text.append((_observation_line(last.observation, width) if last else "-") + "\n")
        text.append("last   ▸ ", style="bold")
        text.append(step_numbers(last) if last else "-")
        return text


class Chart(Widget):
    """A chart drawn to the widget's size on every refresh."""

    DEFAULT_CSS = "Chart { height: 1fr; }"

    def __init__(self, draw: Callable[[int, int], Text], **kw) -> None:
        super().__init__(**kw)
        self.draw = draw

    def render(self) -> Text:
        size = self.content_size
        return self.draw(size.width, size.height)


def charts_for(
    state: DashboardState,
    steps: Callable[[], Sequence[StepRecord]],
    window_s: float | None,
    t_end_ns: Callable[[], int | None] = lambda: None,
    t_start_ns: Callable[[], int | None] = lambda: None,
) -> list[Chart]:
    """Context per step, time per step, and the power trace, for the steps given."""

    def power(w: int, h: int) -> Text:
        start, end = t_start_ns(), t_end_ns()
        points = [p for p in state.power_points
                  if (start is None or p.t_ns >= start) and (end is None or p.t_ns <= end)]
        return power_chart(points, state.phase_at, w, h, state.power.label,
                           state.power.scope, window_s, end)

    return [
        Chart(lambda w, h: context_chart(steps(), w, h), id="chart-context",
              classes="chart"),
        Chart(lambda w, h: time_chart(steps(), w, h), id="chart-time", classes="chart"),
        Chart(power, id="chart-power", classes="chart"),
    ]
