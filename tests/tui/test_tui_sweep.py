"""The run browser reads sweep directories: a folder holding a sweep lists the sweep's runs
with their configuration and repeat, `t` shows the sweep's table, and `edgeagent view` on a
sweep without a terminal prints the table."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

from paths import ROOT
from run_fixture import write_run

from edgeagent.tui.screen import screen_text
from edgeagent.tui.view import ViewApp


def test_the_browser_lists_a_sweep_and_its_runs(tiny_sweep: Path, tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    shutil.copytree(tiny_sweep, folder / tiny_sweep.name)
    single = write_run(folder / "20200101-000000-single")
    index = json.loads((tiny_sweep / "sweep.json").read_text())
    runs = [(c, r) for c in index["configurations"] for r in c["runs"]]

    async def go() -> tuple[str, str]:
        app = ViewApp(folder)
        async with app.run_test(size=(200, 40)) as pilot:
            await pilot.pause(0.5)
            listing = screen_text(app)
            await pilot.press("t")  # the first row is the sweep's first run: its table
            await pilot.pause(0.5)
            return listing, screen_text(app)

    listing, table = asyncio.run(go())
    assert f"{len(runs) + 1} runs in {folder} · {len(runs)} of them in 1 sweep" in listing
    assert "sweep · configuration" in listing
    for conf, run in runs:
        assert f"{tiny_sweep.name} {conf['id']} {conf['label']} r{run['repeat']}" in listing
        assert Path(run["run_dir"]).name[:30] in listing
    assert single.name in listing
    for conf in index["configurations"]:
        assert f"{conf['id']}  {conf['label']}" in table
    assert "turn p50 ms" in table


def test_view_of_a_sweep_without_a_terminal_prints_its_table(tiny_sweep: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "edgeagent.cli", "view", str(tiny_sweep)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "printing the sweep's table instead" in done.stderr
    labels = [c["label"] for c in json.loads((tiny_sweep / "sweep.json").read_text())
              ["configurations"]]
    assert all(label in done.stdout for label in labels)
