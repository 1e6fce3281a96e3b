"""The TUI at 80x24 and 120x36 (issue 20, item 8): every chart title and legend whole, the
footer true to what the keys do, the highlighted task the one the step panel shows, the run
browser's numbers on screen, the step detail above the fold, compare readable (short labels,
one scale, a warning when the task sets differ), per-rail power where the device has rails.

Two real tiny-model runs made through the CLI, metered on the Jetson Orin Nano fixture's
INA3221 rails. The model file carries the default model's name, so that run ids are as long
as real ones (56 characters or more), which is what pushed columns off 80 columns.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from paths import FIXTURES, ROOT

from edgeagent import cli
from edgeagent.events import Event, SampleBatch, StepRecord, TaskRecord, TaskStarted
from edgeagent.rundir import open_run_db
from edgeagent.tui.app import CHARTS_S, DashboardApp
from edgeagent.tui.screen import screen_text
from edgeagent.tui.stored import run_events
from edgeagent.tui.view import ViewApp
from edgeagent.tui.widgets import Chart, TaskTable, fmt_j, fmt_s

ORIN = FIXTURES / "sysfs" / "jetson" / "jp6_orin_nano"
SIZES = ((80, 24), (120, 36))
LEGEND_WORDS = {"chart-context": ("reused", "new"),
                "chart-time": ("prefill", "decode", "tool", "retrieval"),
                "chart-power": ("prefill", "decode", "tool", "other")}


def make_run(model: Path, out: Path, *extra: str) -> Path:
    code = cli.main(["run", "--model", str(model), "--headless", "--out", str(out),
                     "--max-steps", "3", "--max-new-tokens", "24", "--n-ctx", "2048",
                     "--power-root", str(ORIN), *extra])
    assert code in (0, 1)  # 1: the smoke run's verdict; the run itself completed
    (run_dir,) = [p for p in out.iterdir() if (p / "run.db").is_file()]
    return run_dir


@pytest.fixture(scope="module")
def runs(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    models = tmp_path_factory.mktemp("models")
    model = models / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    shutil.copy(tiny_model_path, model)
    root = tmp_path_factory.mktemp("runs")
    a = make_run(model, root / "a", "--threads", "1")
    b = make_run(model, root / "b", "--threads", "2", "--task", "fix-add")
    assert len(a.name) >= 56
    return a, b


def replay(events: Sequence[Event], hold: bool = False):
    """A recorded run fed to the dashboard; `hold`: the run then waits (still going, as if
    mid-step) until the screen asks it to stop."""
    def start(sink, control) -> None:
        for event in events:
            sink.emit(event)
        while hold and not control.stop:
            time.sleep(0.02)
    return start


async def settle(pilot, app, cond=lambda: True, timeout_s: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not cond():
        assert loop.time() < deadline, "timed out waiting for the screen"
        await pilot.pause(0.05)
    await pilot.pause(CHARTS_S + 0.2)


def assert_nothing_cut(app, text: str, where: str) -> None:
    """Every chart draws within its width (a title or legend wider than the chart is cut by
    the crop), every legend word is whole, no border title ends in an ellipsis."""
    charts = list(app.screen.query(Chart))
    assert charts, where
    for chart in charts:
        width = chart.content_size.width
        lines = chart.render().plain.splitlines()
        assert all(len(line.rstrip()) <= width for line in lines), (where, chart.id, lines)
        for word in LEGEND_WORDS.get(chart.id or "", ()):
            assert re.search(rf"[█▓▒░·] {word}\b", lines[-1] + "\n" + "\n".join(lines[-3:])), (
                where, chart.id, word, lines[-3:])
    assert not re.search(r"\bothe\b|\bpref\b|\bdeco\b|\bretr\b", text), where
    for widget in app.screen.query("*"):
        title = getattr(widget, "border_title", None)
        if title:
            assert not str(title).endswith("…"), (where, title)
    for line in text.splitlines():
        if "╭─ " in line:  # a border title drawn cut ends in an ellipsis before its ─╮
            assert "… ─╮" not in line and "…─╮" not in line, (where, line)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x36"])
def test_no_title_or_legend_cut_on_any_screen(runs: tuple[Path, Path], size) -> None:
    a, b = runs

    async def go() -> None:
        app = DashboardApp(replay(run_events(a)))
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app, lambda: app._done)
            assert_nothing_cut(app, screen_text(app), f"dashboard {size}")
        view = ViewApp(a)
        async with view.run_test(size=size) as pilot:
            await settle(pilot, view)
            await pilot.press("enter", "down")
            await pilot.pause(0.2)
            assert_nothing_cut(view, screen_text(view), f"step detail {size}")
        compare = ViewApp(a, compare=b)
        async with compare.run_test(size=size) as pilot:
            await settle(pilot, compare)
            assert_nothing_cut(compare, screen_text(compare), f"compare {size}")

    asyncio.run(go())


@pytest.mark.slow
def test_footer_offers_only_exit_once_the_run_is_over(runs: tuple[Path, Path]) -> None:
    async def go() -> tuple[str, str, bool]:
        events = run_events(runs[0])
        second = [i for i, e in enumerate(events) if isinstance(e, TaskStarted)][1]
        live = DashboardApp(replay(events[:second + 1], hold=True))
        async with live.run_test(size=(80, 24)) as pilot:
            await settle(pilot, live, lambda: live.state.events_seen == second + 1)
            running = screen_text(live).splitlines()[-1]
            live.control.request_stop()
        app = DashboardApp(replay(events))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app, lambda: app._done)
            over = screen_text(app).splitlines()[-1]
            await pilot.press("q")
            await pilot.pause(0.1)
            return running, over, app.is_running

    running, over, still_running = asyncio.run(go())
    assert "pause after step" in running and "stop safely" in running
    assert "exit" in over
    for offer in ("pause after step", "skip task", "stop safely"):
        assert offer not in over
    assert not still_running  # q leaves, as offered


@pytest.mark.slow
def test_highlighted_task_is_the_one_the_step_panel_shows(runs: tuple[Path, Path]) -> None:
    events = run_events(runs[0])
    second = [i for i, e in enumerate(events) if isinstance(e, TaskStarted)][1]
    cut = next(i for i, e in enumerate(events) if i > second and isinstance(e, StepRecord))
    task = events[cut].task_id

    async def go() -> tuple[str | None, str]:
        app = DashboardApp(replay(events[:cut + 1], hold=True))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app, lambda: app.state.events_seen == cut + 1)
            table = app.query_one(TaskTable)
            key = table.coordinate_to_cell_key((table.cursor_row, 0)).row_key.value
            text = screen_text(app)
            app.control.request_stop()
            return key, text

    highlighted, text = asyncio.run(go())
    assert task == "fix-shout"
    assert f"{task} · 1 steps" in text  # the panel's task
    assert highlighted == task


@pytest.mark.slow
def test_run_browser_shows_wall_time_and_energy_at_80_columns(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    db = open_run_db(a)
    try:
        wall_ms, energy_j = db.execute("SELECT wall_ms, energy_j FROM runs").fetchone()
    finally:
        db.close()
    assert energy_j is not None  # the fixture's rails metered the run

    async def go() -> str:
        app = ViewApp(a.parent)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            return screen_text(app)

    text = asyncio.run(go())
    header = next(line for line in text.splitlines() if "resolved" in line and "steps" in line)
    assert "wall s" in header and "energy J" in header
    row = next(line for line in text.splitlines() if a.name[:20] in line)
    assert f" {fmt_s(wall_ms)} " in row and f" {fmt_j(energy_j)} " in row


@pytest.mark.slow
def test_step_detail_numbers_above_the_fold_at_80x24(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    steps = [e for e in run_events(a) if isinstance(e, StepRecord) and e.task_id == "fix-add"]
    s = steps[1]

    async def go() -> str:
        app = ViewApp(a)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot, app)
            await pilot.press("enter", "down")
            await pilot.pause(0.3)
            return screen_text(app)

    text = asyncio.run(go())
    assert f"fix-add · step 2 of {len(steps)}" in text
    # whole lines, not wrapped over two: the numbers read at a glance
    assert (f"context {s.context_tokens} tok: {s.reused_tokens} reused, {s.prefill_tokens} "
            "prefilled") in text
    assert f"decode {s.decoded_tokens} tok in {s.decode_ms:.0f} ms" in text
    assert f"prefill {s.prefill_ms:.0f} ms, TTFT {s.ttft_ms:.0f} ms" in text
    assert "energy J [" in text and f"prefill {fmt_j(s.energy_prefill.joules)} " in text


def compare_text(a: Path, b: Path, size=(80, 24)) -> tuple[str, list[str]]:
    async def go() -> tuple[str, list[str]]:
        app = ViewApp(a, compare=b)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            titles = [str(app.screen.query_one(f"#side-{i}").border_title) for i in (0, 1)]
            return screen_text(app), titles

    return asyncio.run(go())


@pytest.mark.slow
def test_compare_is_readable_at_80x24(runs: tuple[Path, Path]) -> None:
    a, b = runs
    text, titles = compare_text(a, b)
    lines = text.splitlines()
    # both panels draw the context and the time chart, side by side
    for title in ("context scale", "time/step scale"):
        row = next((line for line in lines if line.count(title) == 2), None)
        assert row is not None, (title, text)
    # one scale: the tallest of both runs' bars, the same on both sides
    steps = {d: [e for e in run_events(d) if isinstance(e, StepRecord)
                 and e.task_id == "fix-add"] for d in (a, b)}
    peak = max(sum((s.prefill_ms, s.decode_ms, s.tool_ms)) / 1000 for d in (a, b)
               for s in steps[d])
    scales = re.findall(r"time/step scale (\S+) s", text)
    assert len(scales) == 2 and scales[0] == scales[1]
    assert abs(float(scales[0]) - peak) <= 0.01 * peak + 0.01
    # short labels that tell the runs apart (both ids are 56 characters: cut, they read the
    # same), and a legend naming both runs in full
    assert titles[0][3:] != titles[1][3:]
    assert "threads 1" in titles[0] and "threads 2" in titles[1]
    assert f"A {a.name}" in text and f"B {b.name}" in text
    # the task sets differ: fix-shout and fix-sum-to ran only in A
    assert "task sets differ" in text and "only in A: fix-shout, fix-sum-to" in text


@pytest.mark.slow
def test_same_task_sets_give_no_warning(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    text, _ = compare_text(a, a)
    assert "task sets differ" not in text


def rail_readings(run_dir: Path) -> dict[str, set[float]]:
    """Every rail's readings in run.db (the fixture's rails hold one value each)."""
    db = open_run_db(run_dir)
    try:
        rows = db.execute("SELECT source, value FROM sample_readings").fetchall()
    finally:
        db.close()
    out: dict[str, set[float]] = {}
    for source, value in rows:
        out.setdefault(source.split(":", 1)[1], set()).add(round(value, 2))
    return out


@pytest.mark.slow
def test_per_rail_power_where_the_device_has_rails(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    readings = rail_readings(a)
    assert set(readings) == {"VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"}  # the Orin Nano's INA3221
    assert all(len(v) == 1 for v in readings.values())
    watts = {rail: next(iter(v)) for rail, v in readings.items()}

    async def go() -> tuple[str, str, str]:
        view = ViewApp(a)
        async with view.run_test(size=(120, 36)) as pilot:
            await settle(pilot, view)
            stored = screen_text(view)
            await pilot.press("enter")
            await pilot.pause(0.2)
            step = screen_text(view)
        live = DashboardApp(replay(run_events(a)))
        async with live.run_test(size=(80, 24)) as pilot:
            await settle(pilot, live, lambda: live._done)
            return stored, step, screen_text(live)

    stored, step, live = asyncio.run(go())
    expected = " · ".join(f"{rail} {watts[rail]:.2f} W"
                          for rail in ("VDD_IN", "VDD_CPU_GPU_CV", "VDD_SOC"))
    assert f"rails (fix-add mean): {expected}" in stored
    assert f"rails (now): {expected}" in live
    assert "rails (step mean) VDD_IN" in step


def test_temperature_shown_beside_the_rails_when_sampled() -> None:
    """The sampler's temperature (the hottest hwmon or thermal zone) joins the rails; the
    fixtures give none (it is read from the host), so the samples are fed here."""
    from edgeagent.events import RunStarted
    from edgeagent.tui.state import DashboardState

    power = {"sources": [{"name": "hwmon:sbc", "kind": "power"}],
             "total": {"label": "hwmon:sbc", "scope": "board", "sources": ["hwmon:sbc"]}}
    st = DashboardState()
    st.apply(RunStarted("r", "-", "s", (), {"power": power}))
    s = 1_000_000_000
    st.apply(SampleBatch(((0, None, None, 50.0, None, (("hwmon:sbc", 4.0),)),
                          (s // 2, None, None, 52.0, None, (("hwmon:sbc", 6.0),)))))
    summary = st.rail_summary()
    assert summary is not None and summary.text() == "sbc 5.00 W · 51 °C"
    st2 = DashboardState()
    st2.apply(RunStarted("r", "-", "s", (), {"power": power}))
    st2.apply(SampleBatch(((0, None, None, None, None, (("hwmon:sbc", 4.0),)),)))
    assert st2.rail_summary() is None  # one rail, no temperature: the header says it all


SNAPSHOTS = [f"tui-{screen}-{w}x{h}.svg" for screen in ("dashboard", "runs", "step", "compare")
             for w, h in SIZES]


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_committed_snapshots_have_no_title_or_legend_cut(name: str) -> None:
    """docs/ holds the screenshots tools/tui_snapshots.py took; their text is the screen's."""
    svg = (ROOT / "docs" / name).read_text(encoding="utf-8")
    text = svg_text(svg)
    assert not re.search(r"\bothe\b|\bpref\b|\bdeco\b|\bretr\b", text), name
    assert "…─╮" not in text and "… ─╮" not in text
    if "runs" not in name:
        for word in ("reused", "new", "prefill", "decode", "tool", "retrieval"):
            assert re.search(rf"[█▓▒░·] {word}\b", text), (name, word)
        assert "time/step" in text and "context" in text


def svg_text(svg: str) -> str:
    """The characters of a textual SVG screenshot, line by line (its <text> runs, with the
    non-breaking spaces it writes for spaces)."""
    import html

    rows: dict[str, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*x="([\d.]+)"[^>]*y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(m.group(2), []).append((float(m.group(1)), html.unescape(m.group(3))))
    lines = []
    for y in sorted(rows, key=float):
        lines.append("".join(t for _, t in sorted(rows[y])).replace("\xa0", " "))
    return "\n".join(lines)


@pytest.mark.slow
def test_task_records_and_steps_are_read_back(runs: tuple[Path, Path]) -> None:
    """The fixture runs are what the tests above read: three tasks in A, one in B."""
    a, b = runs
    assert [e.task_id for e in run_events(a) if isinstance(e, TaskRecord)] == [
        "fix-add", "fix-shout", "fix-sum-to"]
    assert [e.task_id for e in run_events(b) if isinstance(e, TaskRecord)] == ["fix-add"]


@pytest.mark.slow
def test_stored_run_task_table_shows_wall_time_and_energy_at_120x36(
        runs: tuple[Path, Path]) -> None:
    """Beside the step detail the task table shows the state by its mark, so that wall time
    and energy fit (at 80 columns the detail keeps the width, and wall time still shows)."""
    a, _ = runs
    records = [e for e in run_events(a) if isinstance(e, TaskRecord)]

    async def go(size) -> str:
        app = ViewApp(a)
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            return screen_text(app)

    wide, narrow = asyncio.run(go((120, 36))), asyncio.run(go((80, 24)))
    for r in records:
        row = next(line for line in wide.splitlines() if line.startswith(f" {r.task_id} "))
        assert re.search(rf" {re.escape(fmt_s(r.wall_ms))} +{re.escape(fmt_j(r.energy_j))} ",
                         row), row
        row = next(line for line in narrow.splitlines() if line.startswith(f" {r.task_id} "))
        assert f" {fmt_s(r.wall_ms)} " in row, row
