"""The docs' table tools over real run directories (scripted engine): results_by_tier.py
pools a configuration split over two runs (`A+B`) with the tiers each recorded, and
resolved_ci.py gives a seeded resolved rate its interval."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT
from test_tiers_report import IssueFollower, make_suite

from edgeagent.config import load_config
from edgeagent.run import execute_run

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_runs(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The easy task in one run, the guided one in another (a task subset run afterwards)."""
    tmp = tmp_path_factory.mktemp("tier-tools")
    suite = make_suite(tmp / "suite")
    dirs = []
    for task in ("easy-add", "guided-add"):
        config = load_config(None, {"model": str(tiny_model_path), "suite": str(suite),
                                    "out": str(tmp / task), "tasks": [task]})
        dirs.append(execute_run(config, engine_factory=lambda p, c: IssueFollower(),
                                progress=False).run_dir)
    return dirs


def _tool(name: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / name), *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_results_by_tier_pools_runs_joined_by_plus(two_runs: list[Path]) -> None:
    easy, guided = two_runs
    out = _tool("results_by_tier.py", f"{easy}+{guided}", "--suite", str(easy.parent.parent
                                                                         / "suite"))
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip()
            for line in out.splitlines() if line.startswith("| ") and "/" in line}
    assert rows["easy"] == "0/1" and rows["guided"] == "1/1" and rows["graded"] == "0/1"
    # side by side: the pooled column and a single run
    out = _tool("results_by_tier.py", f"{easy}+{guided}", str(guided), "--label", "both",
                "--label", "guided")
    guided_row = next(line for line in out.splitlines() if line.startswith("| guided |"))
    assert guided_row.split("|")[2].strip() == "1/1" and guided_row.split("|")[7].strip() == "1/1"


def test_resolved_ci_gives_each_setting_an_interval(two_runs: list[Path]) -> None:
    easy, guided = two_runs
    out = _tool("resolved_ci.py", f"greedy={easy},{guided}")
    row = next(line for line in out.splitlines() if line.startswith("| greedy | guided |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[2:5] == ["0/0, 1/1", "1/1", "1.000"]
    assert cells[5] == "0.207-1.000"  # Wilson 95% for 1 of 1
    assert "greedy" in out.splitlines()[-1]  # the sampler each run recorded


def test_diff_runs_finds_the_same_run_identical_and_a_changed_cell(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    # the same task run twice by the same scripted engine: the same in every non-clock cell
    suite = make_suite(tmp_path / "suite")
    runs = []
    for name in ("first", "again"):
        config = load_config(None, {"model": str(tiny_model_path), "suite": str(suite),
                                    "out": str(tmp_path / name), "tasks": ["easy-add"]})
        runs.append(str(execute_run(config, engine_factory=lambda p, c: IssueFollower(),
                                    progress=False).run_dir))
    out = _tool("diff_runs.py", *runs)
    assert out.strip().endswith("identical") and "0 differing cells" in out
    con = sqlite3.connect(Path(runs[1]) / "run.db")
    con.execute("UPDATE steps SET decoded_tokens = decoded_tokens + 1 WHERE step = 0")
    con.commit()
    con.close()
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "diff_runs.py"), *runs],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "decoded_tokens" in done.stdout
    assert done.stdout.strip().endswith("DIFFERENT")
