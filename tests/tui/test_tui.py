"""The terminal UI on the tiny random-weight model, driven with textual's Pilot.

Three real runs: one headless (console printer) whose events are recorded, one behind the
live dashboard (the same config: its results must be identical), and one that the keys
p, s and q act on. The recorded stream is replayed into a dashboard; the stored run is
opened in the browser.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from paths import FIXTURES

from edgeagent import cli
from edgeagent.config import RunConfig, load_config
from edgeagent.console import ConsolePrinter
from edgeagent.events import (
    Event,
    PhaseStarted,
    RunFinished,
    StepRecord,
    TaskRecord,
    TaskStarted,
    TokenDelta,
)
from edgeagent.run import RunResult, execute_run
from edgeagent.rundir import open_run_db
from edgeagent.tui.app import CHARTS_S, DashboardApp
from edgeagent.tui.launch import use_tui
from edgeagent.tui.screen import screen_text
from edgeagent.tui.stored import run_events
from edgeagent.tui.view import ViewApp
from edgeagent.tui.widgets import STATUS, TaskTable, fmt_j, fmt_s

SMOKE_IDS = ("fix-add", "fix-shout", "fix-sum-to")
SBC = FIXTURES / "sysfs" / "hwmon" / "sbc"  # a 4.113 W sensor


def tiny_config(model: Path, out: Path, **extra: Any) -> RunConfig:
    values = dict(model=str(model), suite="smoke", out=str(out), max_steps=3,
                  max_new_tokens=24, n_ctx=2048, threads=1, power_root=str(SBC),
                  draft_first=False)
    values.update(extra)
    return load_config(None, values)


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)


@dataclass(frozen=True)
class Recorded:
    result: RunResult
    events: list[Event]


@pytest.fixture(scope="module")
def headless(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    recorder = Recorder()
    config = tiny_config(tiny_model_path, tmp_path_factory.mktemp("headless"))
    result = execute_run(config, sinks=[ConsolePrinter(io.StringIO()), recorder],
                         progress=False)
    return Recorded(result, recorder.events)


async def wait_for(pilot, cond: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < deadline, "timed out waiting for the dashboard"
        await pilot.pause(0.05)


def replay(events: list[Event]) -> Callable[..., None]:
    def start(sink, control) -> None:
        for event in events:
            sink.emit(event)
    return start


def table_row(app, task_id: str) -> list[str]:
    table = app.query_one(TaskTable)
    return [str(c) for c in table.get_row(task_id)]


@pytest.mark.slow
def test_recorded_stream_mid_run(headless: Recorded) -> None:
    """Cut the stream in the second task's second step, mid-decode: the first task is
    finished, the second running with its live phase and streamed text, the third queued."""
    events = headless.events
    first_record = next(i for i, e in enumerate(events) if isinstance(e, TaskRecord))
    cut = next(i for i, e in enumerate(events) if i > first_record
               and isinstance(e, PhaseStarted) and e.phase == "decode" and e.step == 1)
    deltas = [e for e in events[cut + 1:cut + 6] if isinstance(e, TokenDelta)]
    assert deltas, "the run streamed tokens"
    shown = events[:cut + 1] + deltas
    record = events[first_record]
    assert isinstance(record, TaskRecord)

    async def go() -> str:
        app = DashboardApp(replay(shown))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.state.events_seen == len(shown))
            await pilot.pause(CHARTS_S + 0.2)  # the charts' repaint cap
            mark, word, _ = STATUS[record.outcome]
            assert table_row(app, record.task_id) == [
                record.task_id, f"{mark} {word}", str(record.steps), fmt_s(record.wall_ms),
                fmt_j(record.energy_j)]
            assert table_row(app, "fix-shout")[1] == "▶ running"
            assert table_row(app, "fix-shout")[2] == "1"  # one step recorded so far
            assert table_row(app, "fix-sum-to")[1:3] == ["· queued", "0"]
            text = screen_text(app)
            await pilot.press("question_mark")  # help on top while the clocks keep ticking
            await pilot.pause(0.3)
            assert app.is_running and "stop safely" in screen_text(app)
            return text

    text = asyncio.run(go())
    assert "fix-shout · step 2 · ▓ DECODE" in text
    streamed = "".join(d.text for d in deltas).strip().splitlines()[-1][:20]
    assert streamed in text
    assert "1/3 tasks done, 0 resolved" in text


@pytest.mark.slow
def test_recorded_stream_whole_run(headless: Recorded, tmp_path: Path) -> None:
    """The whole stream: every task's state and numbers, the run's status, the charts'
    scales, the measured power of the fixture sensor; and an SVG screenshot."""
    records = [e for e in headless.events if isinstance(e, TaskRecord)]
    steps = [e for e in headless.events if isinstance(e, StepRecord)]
    assert [r.task_id for r in records] == list(SMOKE_IDS)

    async def go() -> str:
        app = DashboardApp(replay(headless.events))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.state.finished is not None and app._done)
            await pilot.pause(CHARTS_S + 0.2)
            for r in records:
                mark, word, _ = STATUS[r.outcome]
                assert table_row(app, r.task_id) == [
                    r.task_id, f"{mark} {word}", str(r.steps), fmt_s(r.wall_ms),
                    fmt_j(r.energy_j)]
                assert r.energy_j is not None  # the fixture sensor measured it
            app.save_screenshot("dash.svg", str(tmp_path))
            text = screen_text(app)
            await pilot.press("question_mark")
            await pilot.pause(0.1)
            assert "pause after this step" in screen_text(app)
            await pilot.press("escape")
            await pilot.press("q")  # the run is over: q leaves
            await pilot.pause(0.1)
            assert not app.is_running
            return text

    text = asyncio.run(go())
    assert "COMPLETE" in text and "3/3 tasks done" in text
    for r in records:  # whole words on screen, not cut by a column sized for "queued"
        mark, word, _ = STATUS[r.outcome]
        line = next(x for x in text.splitlines() if x.startswith(f" {r.task_id} "))
        assert f" {mark} {word} " in line
    last = [s for s in steps if s.task_id == "fix-sum-to"]
    assert f"context max {max(s.context_tokens for s in last)} tok" in text
    assert "power 4.11 W (board)" in text  # the sbc fixture reads 4.113 W
    assert "█ new" in text and "reused" in text  # legends in words, not only colours
    svg = (tmp_path / "dash.svg").read_text()
    assert svg.startswith("<svg") and "fix-sum-to" in svg


def rows(run_dir: Path, sql: str) -> list[tuple]:
    db = open_run_db(run_dir)
    try:
        return [tuple(r) for r in db.execute(sql).fetchall()]
    finally:
        db.close()


STEP_COLUMNS = ("task_id, step, raw_output, action_name, action_args_json, format_error, "
                "context_tokens, reused_tokens, prefill_tokens, decoded_tokens, "
                "observation_tokens, tool_exit_code, tool_error")
TASK_COLUMNS = ("task_id, outcome, termination, steps, context_tokens_final, prefill_tokens, "
                "decoded_tokens, reused_tokens, format_errors")


@pytest.mark.slow
def test_results_identical_with_and_without_the_dashboard(
    headless: Recorded, tiny_model_path: Path, tmp_path: Path
) -> None:
    config = tiny_config(tiny_model_path, tmp_path)

    async def go() -> Any:
        app = DashboardApp(
            lambda sink, control: execute_run(config, sinks=[sink], stop_requested=control,
                                              progress=False),
            exit_when_done=True,
        )
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: not app.is_running, timeout_s=60)
        return app.outcome

    outcome = asyncio.run(go())
    assert outcome.error is None
    tui_dir, head_dir = outcome.result.run_dir, headless.result.run_dir
    steps_sql = f"SELECT {STEP_COLUMNS} FROM steps ORDER BY task_id, step"
    tasks_sql = f"SELECT {TASK_COLUMNS} FROM tasks ORDER BY task_id"
    tui_steps, head_steps = rows(tui_dir, steps_sql), rows(head_dir, steps_sql)
    assert len(head_steps) >= 3
    assert tui_steps == head_steps
    assert rows(tui_dir, tasks_sql) == rows(head_dir, tasks_sql)
    # observations too (they live in the trajectories)
    for task_id in SMOKE_IDS:
        obs = [[e.observation for e in run_events(d) if isinstance(e, StepRecord)
                and e.task_id == task_id] for d in (tui_dir, head_dir)]
        assert obs[0] == obs[1]
    assert outcome.result.status == headless.result.status == "complete"


@pytest.mark.slow
def test_keys_skip_pause_stop_on_a_real_run(tiny_model_path: Path, tmp_path: Path) -> None:
    # long tasks (a tiny-model step takes ~50 ms): no early stop on format errors, room for
    # 400 steps, so that only the keys end them however slowly a loaded machine draws
    config = tiny_config(tiny_model_path, tmp_path, max_steps=400, max_format_errors=1000,
                         n_ctx=32768, power_root="/nonexistent-power-root")

    async def go() -> tuple[Any, dict[str, Any]]:
        app = DashboardApp(lambda sink, control: execute_run(
            config, sinks=[sink], stop_requested=control, progress=False))
        seen: dict[str, Any] = {}
        async with app.run_test(size=(80, 24)) as pilot:
            st = app.state
            await wait_for(pilot, lambda: len(st.task_steps("fix-add")) >= 1)
            await pilot.press("s")  # skip fix-add after the step in progress
            await wait_for(pilot, lambda: st.tasks["fix-add"].record is not None)
            await wait_for(pilot, lambda: len(st.task_steps("fix-shout")) >= 1)
            seen["skipped_steps"] = st.tasks["fix-add"].steps
            # the table shows it within its repaint interval
            await wait_for(pilot, lambda: table_row(app, "fix-add")[1] == "» skipped", 5)

            await pilot.press("p")  # pause after the step in progress
            await wait_for(pilot, lambda: app.control.waiting)
            await pilot.pause(0.25)  # the screen drains what came before the pause
            held = len(st.task_steps("fix-shout"))
            await asyncio.sleep(0.6)
            await pilot.pause(0.15)
            seen["paused_steps"] = (held, len(st.task_steps("fix-shout")))
            seen["paused_text"] = screen_text(app)
            await pilot.press("p")  # resume
            await wait_for(pilot, lambda: len(st.task_steps("fix-shout")) > held + 1)

            await pilot.press("q")  # stop safely: finish the step, record, exit
            seen["stopping_text"] = screen_text(app)
            await wait_for(pilot, lambda: not app.is_running, timeout_s=30)
            seen["shown_steps"] = len(st.task_steps("fix-shout"))
        return app.outcome, seen

    outcome, seen = asyncio.run(go())
    assert outcome.error is None and not outcome.aborted
    assert outcome.result.status == "interrupted"
    run_dir = outcome.result.run_dir
    tasks = rows(run_dir, "SELECT task_id, termination, outcome, steps, grading_output "
                          "FROM tasks ORDER BY rowid")
    # s: fix-add ended as skipped (not graded) after its step, and the run went on
    assert tasks[0][:3] == ("fix-add", "skipped", "unresolved")
    assert tasks[0][4] == "not graded: skipped"
    assert 1 <= seen["skipped_steps"] < 400
    # p: no step ran while paused
    assert seen["paused_steps"][0] == seen["paused_steps"][1]
    assert "PAUSED" in seen["paused_text"]
    # q: fix-shout stopped after its step, recorded; fix-sum-to never started
    # the step in progress may already be done when the screen is read
    assert "STOPPING after this step" in seen["stopping_text"] or (
        "INTERRUPTED" in seen["stopping_text"])
    assert tasks[1][:2] == ("fix-shout", "interrupted") and len(tasks) == 2
    stored = rows(run_dir, "SELECT task_id, count(*) FROM steps GROUP BY task_id "
                           "ORDER BY task_id")
    assert stored == [("fix-add", tasks[0][3]), ("fix-shout", tasks[1][3])]
    assert tasks[1][3] == seen["shown_steps"]  # every step shown was recorded, and back
    status = rows(run_dir, "SELECT status FROM runs")
    assert status == [("interrupted",)]
    assert not (run_dir / "trajectories" / "fix-sum-to.jsonl").exists()


@pytest.mark.slow
def test_view_opens_a_stored_run_and_navigates_to_a_step(
    headless: Recorded, tmp_path: Path
) -> None:
    run_dir = headless.result.run_dir
    steps = [e for e in run_events(run_dir) if isinstance(e, StepRecord)
             and e.task_id == "fix-shout"]
    assert len(steps) >= 2
    target = steps[1]

    async def go() -> str:
        app = ViewApp(run_dir)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            await pilot.press("down")   # task fix-shout
            await pilot.press("enter")  # to its steps
            await pilot.press("down")   # step 2
            await pilot.pause(0.2)
            app.save_screenshot("view.svg", str(tmp_path))
            detail = app.screen.query_one("#detail-text").render()
            return str(detail)

    detail = asyncio.run(go())
    assert detail.startswith("fix-shout · step 2 of")
    assert (f"context {target.context_tokens} tok: {target.reused_tokens} reused, "
            f"{target.prefill_tokens} prefilled") in detail
    assert f"decode {target.decoded_tokens} tok" in detail
    assert target.raw_output in detail and target.observation in detail
    assert (tmp_path / "view.svg").read_text().startswith("<svg")


@pytest.mark.slow
def test_view_picks_a_run_and_compares_two(headless: Recorded, tmp_path: Path) -> None:
    root = headless.result.run_dir.parent
    records = [e for e in headless.events if isinstance(e, TaskRecord)]
    total_steps = sum(r.steps for r in records)

    async def go() -> tuple[str, str]:
        app = ViewApp(root)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            picker = screen_text(app)
            await pilot.press("enter")
            await pilot.pause(0.2)
            opened = screen_text(app)
        compare = ViewApp(headless.result.run_dir, compare=headless.result.run_dir)
        async with compare.run_test(size=(80, 24)) as pilot:
            await pilot.pause(0.2)
            summary = str(compare.screen.query_one("#compare-summary").render())
        return picker + opened, summary

    text, summary = asyncio.run(go())
    assert headless.result.run_dir.name[:30] in text
    assert "fix-add · step 1 of" in text
    assert f"steps {total_steps} → {total_steps} (+0%)" in summary


def test_view_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["view", str(tmp_path / "missing")]) == 2
    assert cli.main(["view", str(tmp_path)]) == 2  # a folder without runs
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("edgeagent: error: ") for line in err)
    assert "no runs in" in err[1]


def test_dashboard_opens_only_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert use_tui(headless=False, json=False, stream=Tty())
    assert not use_tui(headless=True, json=False, stream=Tty())
    assert not use_tui(headless=False, json=True, stream=Tty())
    assert not use_tui(headless=False, json=False, stream=io.StringIO())


@pytest.mark.slow
def test_live_markers_are_not_stored(headless: Recorded) -> None:
    kinds = {type(e) for e in headless.events}
    assert {PhaseStarted, TokenDelta, TaskStarted, RunFinished} <= kinds
    db = open_run_db(headless.result.run_dir)
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()
    assert {"runs", "samples", "sample_readings", "steps", "tasks"} <= tables
    # no table for the live markers: they are for the screen only
    assert not [t for t in tables if "phase" in t or "token" in t or "delta" in t]
    # the streamed pieces add up to the text each step recorded
    for step in (e for e in headless.events if isinstance(e, StepRecord)):
        text = "".join(e.text for e in headless.events if isinstance(e, TokenDelta)
                       and e.task_id == step.task_id and e.step == step.step)
        assert text == step.raw_output



def test_power_trace_from_counters_and_meters() -> None:
    """The trace's watts: a power meter's reading as is; an energy counter's difference
    over the interval, none across a wrap or reset."""
    from edgeagent.events import RunStarted, SampleBatch
    from edgeagent.tui.state import DashboardState

    power = {"sources": [{"name": "rapl:package-0", "kind": "counter"},
                         {"name": "rapl:dram", "kind": "counter"}],
             "total": {"label": "rapl", "scope": "package+dram",
                       "sources": ["rapl:package-0", "rapl:dram"]}}
    st = DashboardState()
    st.apply(RunStarted("r", "-", "s", (), {"power": power}))
    s = 1_000_000_000
    st.apply(SampleBatch((
        (0, None, None, None, None, (("rapl:package-0", 100.0), ("rapl:dram", 10.0))),
        (s // 2, None, None, None, None, (("rapl:package-0", 105.0), ("rapl:dram", 10.5))),
        (s, None, None, None, None, (("rapl:package-0", 1.0), ("rapl:dram", 11.0))),  # wrap
        (2 * s, None, None, None, None, (("rapl:package-0", 9.0), ("rapl:dram", 12.0))),
    )))
    assert [(p.t_ns, round(p.watts, 6)) for p in st.power_points] == [(s // 2, 11.0),
                                                                      (2 * s, 9.0)]
