"""`edgeagent view`: browse stored runs in the dashboard's layout.

Pick a run (or open one directly), a task, a step; read the step's full action and
observation with its numbers; compare two runs side by side. Stored runs are folded into the
same DashboardState as a live run (see stored.py), so the widgets and charts are the live ones.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from ..errors import StoreError
from ..events import StepRecord
from .app import CSS_PATH, HelpScreen
from .charts import context_chart, time_chart
from .state import DashboardState
from .stored import RunSummary, find_runs, is_run_dir, run_events
from .widgets import Chart, RunHeader, TaskTable, action_text, charts_for, fmt_j, fmt_s


def load_state(run_dir: Path) -> DashboardState:
    state = DashboardState()
    state.feed(run_events(run_dir))
    state.current_task = next(iter(state.tasks), None)
    return state


def _pct(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return ""
    if a == 0:
        return ""
    return f" ({(b - a) / a * 100:+.0f}%)"


class RunPicker(Screen):
    """The runs under a directory, newest first."""

    BINDINGS = [
        Binding("enter", "open", "open run"),
        Binding("m", "mark", "mark for compare"),
        Binding("c", "compare", "compare with marked"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.runs: list[RunSummary] = find_runs(root)
        self.marked: Path | None = None

    def compose(self) -> ComposeResult:
        yield Static(f" runs in {self.root}: {len(self.runs)}  (enter: open · m: mark · "
                     "c: compare with the marked run)", id="header")
        table = DataTable(id="runs", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for name in ("", "run", "status", "resolved", "steps", "wall s", "energy J"):
            table.add_column(name, key=name or "mark")
        for r in self.runs:
            table.add_row("", r.run_id, r.status, f"{r.resolved}/{r.tasks}", str(r.steps),
                          fmt_s(r.wall_ms), fmt_j(r.energy_j), key=str(r.path))
        table.focus()

    def _highlighted(self) -> Path | None:
        table = self.query_one(DataTable)
        if not self.runs:
            return None
        return self.runs[table.cursor_row].path

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open()

    def action_open(self) -> None:
        path = self._highlighted()
        if path is not None:
            self.app.push_screen(RunScreen(path))

    def action_mark(self) -> None:
        path = self._highlighted()
        if path is None:
            return
        table = self.query_one(DataTable)
        if self.marked is not None:
            table.update_cell(str(self.marked), "mark", "")
        self.marked = None if path == self.marked else path
        if self.marked is not None:
            table.update_cell(str(path), "mark", "A")

    def action_compare(self) -> None:
        path = self._highlighted()
        if self.marked is None or path is None or path == self.marked:
            self.notify("mark a run with m, move to another, then press c", timeout=3)
            return
        self.app.push_screen(CompareScreen(self.marked, path))


class StepTable(DataTable):
    COLUMNS = ("#", "action", "ctx", "reused", "pre ms", "dec tok", "tool ms")

    def show(self, steps: list[StepRecord]) -> None:
        self.clear()
        for s in steps:
            self.add_row(str(s.step + 1), s.action_name or "FORMAT-ERR", str(s.context_tokens),
                         str(s.reused_tokens), f"{s.prefill_ms:.0f}", str(s.decoded_tokens),
                         f"{s.tool_ms:.0f}", key=str(s.step))


def step_detail(state: DashboardState, task_id: str, s: StepRecord) -> Text:
    n = len(state.task_steps(task_id))
    tok_s = (f"{(s.decoded_tokens - 1) / (s.decode_ms / 1000):.1f} tok/s"
             if s.decode_ms > 0 and s.decoded_tokens > 1 else "- tok/s")
    exit_code = "-" if s.tool_exit_code is None else str(s.tool_exit_code)
    energies = [(p, getattr(s, f"energy_{p}")) for p in ("prefill", "decode", "tool", "other")]
    if all(e.joules is None for _, e in energies):
        energy = f"n/a ({energies[0][1].null_reason})"
    else:
        energy = " · ".join(f"{p} {fmt_j(e.joules)} J" for p, e in energies)
        energy += f" [{energies[0][1].scope}]"
    cpu = f"{s.cpu_percent:.0f}%" if s.cpu_percent is not None else "n/a"
    rss = f"{s.rss_bytes / 1e6:.0f} MB" if s.rss_bytes else "n/a"
    text = Text()
    text.append(f"{task_id} · step {s.step + 1} of {n} · ", style="bold")
    text.append(action_text(s) if s.action_name else "FORMAT ERROR", style="bold")
    text.append("\n")
    text.append(
        f"context {s.context_tokens} tok: {s.reused_tokens} reused, {s.prefill_tokens} "
        f"prefilled\nprefill {s.prefill_ms:.0f} ms (TTFT {s.ttft_ms:.0f} ms)\n"
        f"decode {s.decoded_tokens} tok in {s.decode_ms:.0f} ms, {tok_s}"
        + (f" (TPOT {s.tpot_ms:.1f} ms)" if s.tpot_ms is not None else "")
        + f"\ntool {s.tool_ms:.0f} ms, exit {exit_code}"
        + (" (error)" if s.tool_error else "")
        + f"\nenergy {energy}\ncpu {cpu} · rss {rss} · kv cache {s.kv_cache_bytes / 1e6:.1f} MB"
        + "\n"
    )
    if s.format_error:
        text.append(f"format error: {s.format_error}\n", style="bold")
    text.append("── action (raw model output) ──\n", style="bold")
    text.append(s.raw_output + "\n")
    trunc = ", truncated" if s.observation_truncated else ""
    text.append(f"── observation ({s.observation_tokens} tok{trunc}) ──\n", style="bold")
    text.append(s.observation)
    return text


class RunScreen(Screen):
    """One run: header, tasks, the task's steps, the step's detail, the task's charts."""

    BINDINGS = [
        Binding("escape", "back", "back"),
        Binding("question_mark", "app.push_screen('help')", "help", show=False),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, run_dir: Path) -> None:
        super().__init__()
        self.run_dir = run_dir
        self.state = load_state(run_dir)
        self.task_id: str | None = self.state.current_task
        self.step_index: int | None = None

    def compose(self) -> ComposeResult:
        st = self.state
        yield RunHeader(st, self._status, id="header")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield TaskTable(st, id="tasks")
                yield StepTable(id="steps", cursor_type="row")
            with VerticalScroll(id="detail"):
                yield Static(id="detail-text")
        with Horizontal(id="view-charts"):
            yield from charts_for(st, self._steps, window_s=None,
                                    t_start_ns=self._t_start, t_end_ns=self._t_end)
        yield Footer()

    def _status(self) -> str:
        return (self.state.finished.status if self.state.finished else "no end recorded").upper()

    def _steps(self) -> list[StepRecord]:
        return self.state.task_steps(self.task_id)

    def _t_start(self) -> int | None:
        steps = self._steps()
        return min((s.t_other_start_ns or s.t_start_ns for s in steps), default=None)

    def _t_end(self) -> int | None:
        steps = self._steps()
        return max((s.t_tool_end_ns for s in steps), default=None)

    def on_mount(self) -> None:
        for col in StepTable.COLUMNS:
            self.query_one(StepTable).add_column(col)
        self.query_one("#detail").border_title = "step"
        self.query_one("#view-charts").border_title = "task"
        self.query_one(TaskTable).focus()
        self.show_task(self.task_id)

    def show_task(self, task_id: str | None) -> None:
        self.task_id = task_id
        self.state.current_task = task_id
        steps = self._steps()
        self.query_one(StepTable).show(steps)
        self.query_one("#view-charts").border_title = f"task {task_id}: {len(steps)} steps"
        self.show_step(0 if steps else None)
        for chart in self.query(Chart):
            chart.refresh()

    def show_step(self, index: int | None) -> None:
        self.step_index = index
        detail = self.query_one("#detail-text", Static)
        steps = self._steps()
        if index is None or index >= len(steps):
            prompt = self.state.prompts.get(self.task_id or "")
            detail.update(Text(f"{self.task_id}: no steps recorded\n\n"
                               + (prompt.task_prompt if prompt else "")))
            return
        detail.update(step_detail(self.state, self.task_id or "", steps[index]))
        self.query_one("#detail").border_title = f"step {index + 1}"
        self.query_one("#detail").scroll_home(animate=False)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value is None:
            return
        if isinstance(event.data_table, TaskTable):
            if event.row_key.value != self.task_id:
                self.show_task(event.row_key.value)
        elif isinstance(event.data_table, StepTable):
            self.show_step(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if isinstance(event.data_table, TaskTable):
            self.query_one(StepTable).focus()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()


class CompareScreen(Screen):
    """Two runs side by side: totals with the change, per-task tables, the picked task's
    context and time charts."""

    BINDINGS = [Binding("escape", "back", "back"), Binding("q", "app.quit", "quit")]

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__()
        self.paths = (a, b)
        self.states = (load_state(a), load_state(b))
        self.task_id = next(iter(self.states[0].tasks), None)

    def compose(self) -> ComposeResult:
        yield Static(self._summary(), id="compare-summary")
        with Horizontal():
            for i, st in enumerate(self.states):
                with Vertical(classes="compare-side", id=f"side-{i}"):
                    yield TaskTable(st, id=f"tasks-{i}")
                    yield Chart(self._drawer(st, context_chart), classes="chart")
                    yield Chart(self._drawer(st, time_chart), classes="chart")
        yield Footer()

    def _drawer(self, st: DashboardState, chart):
        return lambda w, h: chart(st.task_steps(self.task_id), w, h)

    def on_mount(self) -> None:
        for i, path in enumerate(self.paths):
            self.query_one(f"#side-{i}").border_title = f"{'AB'[i]}: {path.name}"

    def _summary(self) -> Text:
        a, b = self.states

        def totals(st: DashboardState) -> dict[str, float | None]:
            records = [t.record for t in st.tasks.values() if t.record is not None]
            energies = [r.energy_j for r in records]
            return {
                "resolved": float(st.resolved),
                "steps": float(sum(r.steps for r in records)),
                "wall s": sum(r.wall_ms for r in records) / 1000,
                "prefill s": sum(r.prefill_ms for r in records) / 1000,
                "decode s": sum(r.decode_ms for r in records) / 1000,
                "tool s": sum(r.tool_ms for r in records) / 1000,
                "energy J": (sum(e for e in energies if e is not None)
                             if energies and None not in energies else None),
            }

        ta, tb = totals(a), totals(b)
        text = Text()
        text.append(f"A {a.model} · {a.suite}   B {b.model} · {b.suite}\n", style="bold")
        parts = []
        for key in ta:
            va, vb = ta[key], tb[key]
            fa = "n/a" if va is None else f"{va:g}" if key in ("resolved", "steps") else f"{va:.1f}"
            fb = "n/a" if vb is None else f"{vb:g}" if key in ("resolved", "steps") else f"{vb:.1f}"
            parts.append(f"{key} {fa} → {fb}{_pct(va, vb)}")
        text.append(" · ".join(parts))
        return text

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key is None or event.row_key.value == self.task_id:
            return
        self.task_id = event.row_key.value
        for chart in self.query(Chart):
            chart.refresh()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()
        else:
            self.app.exit()


class ViewApp(App[None]):
    CSS_PATH = CSS_PATH
    TITLE = "edgeagent view"
    ENABLE_COMMAND_PALETTE = False
    SCREENS = {"help": HelpScreen}

    def __init__(self, path: Path, compare: Path | None = None) -> None:
        super().__init__()
        self.path = path
        self.compare = compare

    def on_mount(self) -> None:
        if self.compare is not None:
            self.push_screen(CompareScreen(self.path, self.compare))
        elif is_run_dir(self.path):
            self.push_screen(RunScreen(self.path))
        else:
            self.push_screen(RunPicker(self.path))


def check_view_paths(path: Path, compare: Path | None) -> None:
    """Fail with one line before the screen opens (StoreError: exit code 2)."""
    if not path.is_dir():
        raise StoreError(f"{path} is not a directory (give a run directory or the folder of "
                         "runs, default runs/)")
    for p in (path, compare) if compare is not None else ():
        if not is_run_dir(p):
            raise StoreError(f"--compare needs two run directories; {p} has no run.db")
    if compare is None and not is_run_dir(path) and not find_runs(path):
        raise StoreError(f"no runs in {path} (run `edgeagent run --out {path}` first, or give "
                         "a run directory)")
    for p in (path, compare):
        if p is not None and is_run_dir(p):
            run_events(p)  # a broken run.db fails here, in one line

