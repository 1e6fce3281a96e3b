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
from ..rundir import is_run_dir
from .app import CSS_PATH, HelpScreen
from .charts import context_chart, context_peak, time_chart, time_peak
from .state import DashboardState, RailSummary
from .stored import RunSummary, find_runs, run_events
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
        Binding("t", "sweep_table", "sweep table"),
        Binding("q", "app.quit", "quit"),
    ]

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.runs: list[RunSummary] = find_runs(root)
        self.marked: Path | None = None

    def compose(self) -> ComposeResult:
        sweeps = {r.sweep_dir for r in self.runs if r.sweep_dir is not None}
        in_sweeps = (f" · {sum(1 for r in self.runs if r.sweep_dir)} of them in "
                     f"{len(sweeps)} sweep{'s' if len(sweeps) > 1 else ''} (t: its table)"
                     if sweeps else "")
        yield Static(f" {len(self.runs)} runs in {self.root}{in_sweeps} · enter opens one",
                     id="header")
        table = DataTable(id="runs", cursor_type="row")
        yield table
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        # the numbers before the run id: an id of 58 characters would push them off 80
        # columns, and the id still reads when its end is cut
        swept = any(r.sweep for r in self.runs)
        names = ("", "status", "resolved", "steps", "wall s", "energy J",
                 *(("sweep · configuration",) if swept else ()), "run")
        for name in names:
            table.add_column(name, key=name or "mark")
        for r in self.runs:
            table.add_row("", r.status, f"{r.resolved}/{r.tasks}", str(r.steps),
                          fmt_s(r.wall_ms), fmt_j(r.energy_j), *((r.sweep,) if swept else ()),
                          r.run_id, key=str(r.path))
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

    def action_sweep_table(self) -> None:
        run = self.runs[self.query_one(DataTable).cursor_row] if self.runs else None
        if run is None or run.sweep_dir is None:
            self.notify("this run is not part of a sweep", timeout=3)
            return
        self.app.push_screen(SweepTableScreen(run.sweep_dir))

    def action_compare(self) -> None:
        path = self._highlighted()
        if self.marked is None or path is None or path == self.marked:
            self.notify("mark a run with m, move to another, then press c", timeout=3)
            return
        self.app.push_screen(CompareScreen(self.marked, path))


class SweepTableScreen(Screen):
    """A sweep's table (`edgeagent compare SWEEP_DIR`): a row per configuration."""

    BINDINGS = [Binding("escape", "app.pop_screen", "back"), Binding("q", "app.quit", "quit")]

    def __init__(self, sweep_dir: Path) -> None:
        super().__init__()
        self.sweep_dir = sweep_dir

    def compose(self) -> ComposeResult:
        from ..sweep import load_index, render_table, sweep_table

        text = render_table(sweep_table(load_index(self.sweep_dir)), "text")
        with VerticalScroll(id="detail"):
            yield Static(Text(text, no_wrap=True))
        yield Footer()


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
        energy = f"J [{energies[0][1].scope}] " + " · ".join(
            f"{p} {fmt_j(e.joules)}" for p, e in energies)
    cpu = f"{s.cpu_percent:.0f}%" if s.cpu_percent is not None else "n/a"
    rss = f"{s.rss_bytes / 1e6:.0f} MB" if s.rss_bytes else "n/a"
    # the numbers in few short lines, so that at 80x24 the action starts above the fold
    text = Text()
    text.append(f"{task_id} · step {s.step + 1} of {n} · ", style="bold")
    text.append(action_text(s) if s.action_name else "FORMAT ERROR", style="bold")
    text.append("\n")
    tpot = f", TPOT {s.tpot_ms:.1f} ms" if s.tpot_ms is not None else ""
    text.append(
        f"context {s.context_tokens} tok: {s.reused_tokens} reused, {s.prefill_tokens} "
        f"prefilled\nprefill {s.prefill_ms:.0f} ms, TTFT {s.ttft_ms:.0f} ms · tool "
        f"{s.tool_ms:.0f} ms, exit {exit_code}{' (error)' if s.tool_error else ''}\n"
        f"decode {s.decoded_tokens} tok in {s.decode_ms:.0f} ms, {tok_s}{tpot}\n"
        f"energy {energy}\ncpu {cpu} · rss {rss} · kv cache {s.kv_cache_bytes / 1e6:.1f} MB\n"
    )
    rails = state.rail_summary(s.t_other_start_ns or s.t_start_ns, s.t_tool_end_ns)
    if rails is not None:
        text.append(f"rails (step mean) {rails.text()}\n")
    text.append("── action (raw model output) ──\n", style="bold")
    text.append(s.raw_output + "\n")
    if s.format_error:
        text.append(f"format error: {s.format_error}\n", style="bold")
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
        yield RunHeader(st, self._status, self._task_rails, id="header")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield TaskTable(st, compact=True, id="tasks")
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

    def _task_rails(self) -> tuple[str, RailSummary | None]:
        start, end = self._t_start(), self._t_end()
        if start is None or end is None:
            return "", None
        return f"{self.task_id} mean", self.state.rail_summary(start, end)

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
        self.query_one(RunHeader).refresh(layout=True)

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


def _stamp(path: Path) -> str:
    """The start time in a run id (YYYYMMDD-HHMMSS-...), else the folder's name."""
    parts = path.name.split("-")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
        return f"{parts[0]}-{parts[1]}"
    return path.name


def run_labels(paths: tuple[Path, Path], states: tuple[DashboardState, DashboardState]
               ) -> tuple[str, str]:
    """Short labels for two runs, the facts that tell them apart first: run ids are too long
    to head a half-screen panel, and cut they read the same."""
    facts = []
    for path, st in zip(paths, states, strict=True):
        model = Path(st.model).stem if st.model else "-"
        threads = f"threads {st.threads}" if st.threads else "threads auto"
        facts.append([_stamp(path), model, threads, st.device or "-",
                      st.power.label or "no power"])
    a, b = facts
    if a[0][:8] == b[0][:8]:  # the same day: the time alone tells them apart
        a[0], b[0] = a[0][9:], b[0][9:]
    # only what differs (the summary above names both runs in full); the model when nothing does
    differ = [i for i in range(len(a)) if a[i] != b[i]] or [1]
    return tuple(" · ".join(f[i] for i in differ) for f in facts)  # type: ignore[return-value]


def task_set_warning(a: DashboardState, b: DashboardState) -> str | None:
    only_a = [t for t in a.tasks if t not in b.tasks]
    only_b = [t for t in b.tasks if t not in a.tasks]
    if not only_a and not only_b:
        return None
    parts = [f"only in {side}: {', '.join(ids)}" for side, ids in (("A", only_a), ("B", only_b))
             if ids]
    return f"! task sets differ, totals not like for like: {'; '.join(parts)}"


class CompareScreen(Screen):
    """Two runs side by side: totals with the change, per-task tables, the picked task's
    context and time charts, both drawn to one scale so that bar heights compare."""

    BINDINGS = [Binding("escape", "back", "back"), Binding("q", "app.quit", "quit")]

    def __init__(self, a: Path, b: Path) -> None:
        super().__init__()
        self.paths = (a, b)
        self.states = (load_state(a), load_state(b))
        self.task_id = next(iter(self.states[0].tasks), None)
        self.labels = run_labels(self.paths, self.states)

    def compose(self) -> ComposeResult:
        yield Static(self._summary(), id="compare-summary")
        with Horizontal():
            for i, st in enumerate(self.states):
                with Vertical(classes="compare-side", id=f"side-{i}"):
                    yield TaskTable(st, compact=True, id=f"tasks-{i}")
                    yield Chart(self._drawer(st, context_chart, context_peak),
                                classes="chart", id=f"context-{i}")
                    yield Chart(self._drawer(st, time_chart, time_peak), classes="chart",
                                id=f"time-{i}")
        yield Footer()

    def _drawer(self, st: DashboardState, chart, peak_of):
        def draw(w: int, h: int) -> Text:
            peak = max(peak_of(other.task_steps(self.task_id)) for other in self.states)
            return chart(st.task_steps(self.task_id), w, h, peak=peak)
        return draw

    def on_mount(self) -> None:
        # both tables as tall as the longer one, so that the charts line up side by side
        rows = max(len(st.tasks) for st in self.states) + 1
        for i in range(2):
            self.query_one(f"#side-{i}").border_title = f"{'AB'[i]}: {self.labels[i]}"
            self.query_one(f"#tasks-{i}", TaskTable).styles.height = min(rows, 7)

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
        for i, path in enumerate(self.paths):
            text.append(f"{'AB'[i]} ", style="bold")
            text.append(f"{path.name}\n")
        parts = []
        for key in ta:
            va, vb = ta[key], tb[key]
            fa = "n/a" if va is None else f"{va:g}" if key in ("resolved", "steps") else f"{va:.1f}"
            fb = "n/a" if vb is None else f"{vb:g}" if key in ("resolved", "steps") else f"{vb:.1f}"
            parts.append(f"{key} {fa} → {fb}{_pct(va, vb)}")
        text.append(" · ".join(parts))
        warning = task_set_warning(a, b)
        if warning:
            text.append("\n" + warning, style="bold #d19a66")
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

