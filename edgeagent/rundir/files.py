"""Every name in a run directory, in one place, and the small readers of its plain files.

A run directory holds run.db (steps, tasks, samples: the store), config.yaml (the settings
it ran with), provenance.json (device, model, engine as resolved), trajectories/ (one JSONL
a task), and per kind of run its summaries: a replay's turns, scores, result summary and
report, the mlperf/ folder in MLPerf endpoints' layout, an accuracy run's results, and a
repeated run's repeats.json."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from .provenance_record import Provenance

DB_FILE = "run.db"
CONFIG_FILE = "config.yaml"
PROVENANCE_FILE = "provenance.json"
TRAJECTORIES_DIR = "trajectories"
# a replay's
TURNS_FILE = "replay_turns.jsonl"  # one scored turn a line
SUPERSEDED_TURNS_FILE = "replay_turns.superseded.jsonl"  # a resumed replay's cut attempts
SUMMARY_FILE = "result_summary.json"
SCORES_FILE = "scores.json"
REPORT_FILE = "report.txt"
MLPERF_DIR = "mlperf"  # the files MLPerf endpoints' own tools read
# an accuracy run's: its own results, and MLPerf's accuracy artifact where MLPerf's checker
# (compliance/checker.py `check_submission`) and README look for it
ACCURACY_RESULTS_FILE = "accuracy_results.json"
ACCURACY_SAMPLES_FILE = "accuracy_samples.jsonl"  # one line per evaluated sample
MLPERF_RESULTS_FILE = "accuracy/accuracy_results.json"
# a group of repeated runs' (beside its runs)
REPEATS_FILE = "repeats.json"


def is_run_dir(path: Path) -> bool:
    """A directory with a store in it (finished or not)."""
    return (Path(path) / DB_FILE).is_file()


def trajectory_path(run_dir: Path, task_id: str) -> Path:
    return Path(run_dir) / TRAJECTORIES_DIR / f"{task_id}.jsonl"


def read_config(run_dir: Path) -> dict[str, Any] | None:
    """config.yaml as a mapping; None where the file is missing or is not a mapping (the
    caller says what that means for it)."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def read_provenance(run_dir: Path) -> Provenance | None:
    """provenance.json as its record; None where it is missing (a run cut before it started)."""
    path = Path(run_dir) / PROVENANCE_FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return Provenance.from_dict(data) if isinstance(data, dict) else None


def replace_file(path: Path, text: str) -> None:
    """Write `path` whole through a temporary file beside it: a reader sees the old file or
    the new one, never half of either."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
