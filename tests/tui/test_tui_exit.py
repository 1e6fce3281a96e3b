"""`edgeagent run` on a real terminal (tmux) ends like the headless path: `q` stops safely
with 130 and the `--resume DIR` hint; a finished run exits with the verdict's code."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import ROOT

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")]


def _run_in_tmux(tmp_path: Path, args: list[str], stop_early: bool) -> tuple[int, str]:
    """Run `edgeagent run ARGS` in a detached 80x24 tmux pane; with `stop_early`, type `q`
    once its first step is recorded; type `q` again when the dashboard's footer offers only
    exit (it stays open until then); return (exit code, what the terminal shows after)."""
    session = f"edgeagent-test-{os.getpid()}-{time.monotonic_ns()}"
    rc = tmp_path / "rc.txt"
    cmd = " ".join(shlex.quote(a) for a in [sys.executable, "-m", "edgeagent.cli", "run", *args])
    # the dashboard draws on the terminal (textual writes to stderr): nothing is redirected;
    # the pane stays a while after the command so its last lines can be read
    shell = f"cd {shlex.quote(str(ROOT))} && {cmd}; echo $? > {rc}; sleep 60"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24",
                    shell], check=True, env=env)

    def send_q() -> None:
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)

    def screen() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-200", "-t",
                               session], capture_output=True, text=True).stdout

    try:
        deadline = time.monotonic() + 180
        runs = tmp_path / "runs"
        while not rc.exists() and time.monotonic() < deadline:
            if stop_early and any(runs.glob("*/trajectories/*")):  # a step is on disk
                send_q()
                stop_early = False
            if " q exit " in screen():  # the footer once the run is over
                send_q()
            time.sleep(0.5)
        assert rc.exists(), f"the run did not end:\n{screen()}"
        time.sleep(0.3)
        return int(rc.read_text()), screen()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def test_q_stops_safely_and_prints_the_resume_hint(tiny_model_path: Path,
                                                  tmp_path: Path) -> None:
    # a run that lasts: the random-weight model's replies are format errors, which would
    # otherwise end the task after 3 in a row, before `q` arrives
    config = tmp_path / "run.yaml"
    config.write_text("max_format_errors: 10000\n")
    code, err = _run_in_tmux(tmp_path, ["--config", str(config), "--model", str(tiny_model_path),
                                        "--task", "fix-add", "--max-steps", "400",
                                        "--out", str(tmp_path / "runs"),
                                        "--max-new-tokens", "16"], stop_early=True)
    assert code == 130, err
    run_dir = next((tmp_path / "runs").iterdir())
    assert f"continue with: edgeagent run --resume {run_dir}" in err


def test_a_finished_run_exits_with_the_verdicts_code(tiny_model_path: Path,
                                                    tmp_path: Path) -> None:
    code, err = _run_in_tmux(tmp_path, ["--model", str(tiny_model_path), "--task", "fix-add",
                                        "--max-steps", "2", "--out", str(tmp_path / "runs"),
                                        "--max-new-tokens", "16"], stop_early=False)
    run_dir = next((tmp_path / "runs").iterdir())
    check = subprocess.run([sys.executable, "-m", "edgeagent.cli", "check", str(run_dir)],
                           capture_output=True, text=True, cwd=ROOT)
    assert code == check.returncode, (err, check.stdout)
