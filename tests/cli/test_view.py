"""`edgeagent view` without a terminal: the report (or the comparison) instead of a screen
drawn to a pipe that never ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT
from run_fixture import write_run

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

VIEW = [sys.executable, "-m", "edgeagent.cli", "view"]


def _view(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*VIEW, *args], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60, cwd=ROOT)


def test_view_without_a_terminal_prints_the_report_and_exits(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs" / "r")
    other = write_run(tmp_path / "runs" / "o")
    done = _view(str(run))
    assert done.returncode == 0, done.stderr
    assert "printing `edgeagent report` instead" in done.stderr
    assert done.stdout.startswith(f"run {run.name}  [complete]") and "Result is:" in done.stdout
    both = _view(str(run), "--compare", str(other))
    assert both.returncode == 0 and "printing `edgeagent compare` instead" in both.stderr
    folder = _view(str(tmp_path / "runs"))
    assert folder.returncode == 2 and len(folder.stderr.splitlines()) == 1
    assert "needs a terminal" in folder.stderr
