"""Ctrl-C in the middle of a sweep leaves it resumable: `--resume` keeps every finished run
(same directory, run.db untouched), redoes the run the interrupt cut short and says so, and
runs what never started."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent import cli

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow


def _index(out: Path) -> dict | None:
    found = list(out.glob("*/sweep.json"))
    if not found:
        return None
    with contextlib.suppress(ValueError, OSError):
        return json.loads(found[0].read_text())
    return None


def _complete(index: dict | None) -> dict[tuple[str, int], str]:
    return {(c["id"], r["repeat"]): r["run_dir"] for c in (index or {}).get("configurations", [])
            for r in c["runs"] if r["status"] == "complete"}


def test_an_interrupted_sweep_resumes_without_redoing_finished_runs(
    tiny_kv_model_path: Path, tmp_path: Path
) -> None:
    cmd = [sys.executable, "-m", "edgeagent.cli", "sweep", "--model", str(tiny_kv_model_path),
           "--threads", "1", "--flash-attn", "1", "--kv-type", "f16,q8_0", "--repeats", "2",
           "--conversations", "2", "--max-new-tokens", "8", "--n-ctx", "2048",
           "--out", str(tmp_path)]
    # its own process group, as a shell's foreground job: Ctrl-C signals the whole group
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while not _complete(_index(tmp_path)) and proc.poll() is None:
        assert time.monotonic() < deadline, "no run finished in 120 s"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "continue with: edgeagent sweep --resume" in err
    index = _index(tmp_path)
    assert index is not None and index["status"] == "interrupted"
    (sweep,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    finished = _complete(index)
    assert 1 <= len(finished) < 4
    cut_short = [(c["id"], r) for c in index["configurations"] for r in c["runs"]
                 if r["status"] != "complete"]
    assert all(r["status"] == "interrupted" for _, r in cut_short)
    kept = {rd: (sweep / rd / "run.db").stat().st_mtime_ns for rd in finished.values()}

    log = io.StringIO()
    with contextlib.redirect_stderr(log), contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["sweep", "--resume", str(sweep)]) == 0
    resumed = json.loads((sweep / "sweep.json").read_text())
    assert resumed["status"] == "complete" and len(_complete(resumed)) == 4
    for key, run_dir in finished.items():
        assert _complete(resumed)[key] == run_dir  # not redone
        assert (sweep / run_dir / "run.db").stat().st_mtime_ns == kept[run_dir]
    for config_id, entry in cut_short:
        conf = next(c for c in resumed["configurations"] if c["id"] == config_id)
        assert [s["run_dir"] for s in conf["superseded"]] == [entry["run_dir"]]
        assert f"{config_id} " in log.getvalue() and "redoing it (its run" in log.getvalue()
    started = [x for x in log.getvalue().splitlines() if x.startswith("[") and ": complete (" in x]
    # every run that had not finished ran now, and only those
    assert len(started) == 4 - len(finished)
    runs = sorted(p.name for p in (sweep / "runs").iterdir())
    expected = {*_complete(resumed).values(),
                *(e["run_dir"] for _, e in cut_short if e["run_dir"])}
    assert runs == sorted(Path(r).name for r in expected)
