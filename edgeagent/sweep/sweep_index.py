"""sweep.json: the sweep directory's index of its configurations and their run directories.

It is rewritten whole (to a temporary file, then renamed) at every run's start and end, so an
interrupted sweep always leaves a readable index: what ran, what finished, what to redo.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import StoreError

INDEX_FILE = "sweep.json"
RUNS_DIR = "runs"  # the run directories, under the sweep directory
FORMAT = "edgeagent-sweep"
VERSION = 1


def is_sweep_dir(path: Path) -> bool:
    return (Path(path) / INDEX_FILE).is_file()


@dataclass
class SweepIndex:
    """The index as data: `plan` is what was asked (workload, grid, repeats, base settings;
    a resumed sweep must ask the same), `configurations` what happened to each."""

    path: Path  # the sweep directory
    plan: dict[str, Any]
    configurations: list[dict[str, Any]] = field(default_factory=list)
    status: str = "running"  # running | complete | interrupted | failed

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "status": self.status,
                "plan": self.plan, "configurations": self.configurations}

    def save(self) -> None:
        tmp = self.path / (INDEX_FILE + ".tmp")
        try:
            tmp.write_text(json.dumps(self.to_dict(), indent=2, default=str) + "\n")
            os.replace(tmp, self.path / INDEX_FILE)
        except OSError as exc:
            raise StoreError(f"cannot write {self.path / INDEX_FILE}: {exc.strerror or exc} "
                             "(free space or choose another --out)") from exc

    def configuration(self, config_id: str) -> dict[str, Any]:
        return next(c for c in self.configurations if c["id"] == config_id)

    def run_dirs(self) -> list[tuple[dict[str, Any], dict[str, Any], Path]]:
        """(configuration, run entry, run directory) of every run the index keeps, in grid
        and repeat order; superseded runs are left out."""
        out = []
        for conf in self.configurations:
            for run in conf.get("runs", []):
                if run.get("run_dir"):
                    out.append((conf, run, self.path / run["run_dir"]))
        return out


def load_index(path: Path) -> SweepIndex:
    """Read SWEEP/sweep.json; one clear line when it is missing or not an index."""
    path = Path(path)
    file = path / INDEX_FILE
    if not file.is_file():
        raise StoreError(f"{path} is not a sweep directory (no {INDEX_FILE}); give a directory "
                         "made by `edgeagent sweep`")
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {file}: {exc} (is it a sweep index?)") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StoreError(f"{file} is not an edgeagent sweep index (no format: {FORMAT})")
    return SweepIndex(path, data.get("plan") or {}, list(data.get("configurations") or []),
                      data.get("status", "running"))
