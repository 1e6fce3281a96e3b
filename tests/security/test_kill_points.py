"""SIGKILL at random points in `replay`, `sweep` and `serve` on the tiny model (`run` is in
test_resume.py): after every kill run.db opens with no committed step lost, and `--resume`
finishes the replay or the sweep with exactly one kept attempt per conversation or run; a
killed `serve` has recorded every answer its client received."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from kill_loop import KillLoop, Steps, committed_steps
from serve_process import start_serve

from edgeagent.rundir import open_run_db

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
MODEL_ARGS = ("--max-new-tokens", "16", "--n-ctx", "2048", "--threads", "1")


def _kept(run_dir: Path) -> tuple[str, list, set]:
    db = open_run_db(run_dir)
    try:
        status = db.execute("SELECT status FROM runs").fetchone()[0]
        tasks = db.execute("SELECT task_id, attempt, steps, termination FROM tasks").fetchall()
        superseded = {(r[0], r[1]) for r in db.execute(
            "SELECT task_id, attempt FROM superseded")}
    finally:
        db.close()
    return status, [t for t in tasks if t["termination"] != "interrupted"], superseded


def test_replay_sigkill_at_random_points_then_resume(tiny_model_path: Path, tmp_path: Path,
                                                      reliability) -> None:
    out = tmp_path / "runs"
    loop = KillLoop(
        new=[str(EDGEAGENT), "replay", "--model", str(tiny_model_path), "--out", str(out),
             *MODEL_ARGS],
        resume=lambda d: [str(EDGEAGENT), "replay", "--resume", str(d), "--threads", "1"],
        out=out, cwd=tmp_path, wait_s=(0.3, 4.0), seed=20261203)
    loop.run(kills=35, budget_s=130)
    loop.finish_all()
    superseded_total = 0
    for run_dir in loop.committed:
        status, kept, superseded = _kept(run_dir)
        assert status == "complete"
        assert sorted(t["task_id"] for t in kept) == ["fix-add", "fix-shout", "fix-sum-to"]
        steps = committed_steps(run_dir)
        assert steps is not None
        kept_pairs = {(t[0], t[1]) for t in kept}
        for t in kept:  # the kept attempt has exactly its steps, numbered 0..n-1
            assert sorted(s for (c, a, s) in steps if (c, a) == (t[0], t[1])) == list(
                range(t["steps"]))
        assert all((c, a) in kept_pairs | superseded for c, a, _ in steps)
        turns = [json.loads(x) for x in (run_dir / "replay_turns.jsonl").read_text().splitlines()]
        assert len({(t["conversation_id"], t["step"]) for t in turns}) == len(turns) == 12
        summary = json.loads((run_dir / "result_summary.json").read_text())
        assert summary["turns_total"] == 12 and summary["run_status"] == "complete"
        superseded_total += len(superseded)
    assert loop.kills >= 10, f"only {loop.kills} kill points"
    assert loop.lost == 0
    reliability("resume", kill_points=loop.kills, runs=len(loop.committed), steps_lost=0,
                attempts_superseded=superseded_total,
                steps_committed=sum(len(s) for s in loop.committed.values()))
    reliability("kill_points", replay=loop.kills)


def _sweep_steps(sweep_dir: Path) -> Steps | None:
    """Every committed step of the sweep's runs, keyed by run directory name."""
    if not (sweep_dir / "sweep.json").is_file():
        return None
    steps: Steps = set()
    for run_dir in sorted((sweep_dir / "runs").glob("*")):
        for task, attempt, step in committed_steps(run_dir) or ():
            steps.add((f"{run_dir.name}/{task}", attempt, step))
    return steps


def test_sweep_sigkill_at_random_points_then_resume(tiny_model_path: Path, tmp_path: Path,
                                                     reliability) -> None:
    out = tmp_path / "sweeps"
    loop = KillLoop(
        new=[str(EDGEAGENT), "sweep", "--model", str(tiny_model_path), "--n-batch", "256,512",
             "--out", str(out), *MODEL_ARGS],
        resume=lambda d: [str(EDGEAGENT), "sweep", "--resume", str(d)],
        out=out, cwd=tmp_path, steps_of=_sweep_steps, wait_s=(1.0, 8.0), seed=20261204)
    loop.run(kills=15, budget_s=150)
    loop.finish_all(timeout_s=240)
    for sweep_dir in loop.committed:
        index = json.loads((sweep_dir / "sweep.json").read_text())
        assert index["status"] == "complete", index
        for conf in index["configurations"]:
            assert [r["status"] for r in conf["runs"]] == ["complete"], conf
    assert loop.kills >= 5, f"only {loop.kills} kill points"
    assert loop.lost == 0
    reliability("resume", kill_points=loop.kills, runs=len(loop.committed), steps_lost=0,
                steps_committed=sum(len(s) for s in loop.committed.values()))
    reliability("kill_points", sweep=loop.kills)


def _ask_until_killed(url: str, answered: list[int], stop: threading.Event) -> None:
    import httpx

    body = {"model": "m", "max_tokens": 8, "temperature": 0,
            "messages": [{"role": "user", "content": "Say something."}]}
    with httpx.Client(timeout=30) as http:
        while not stop.is_set():
            try:
                reply = http.post(f"{url}/chat/completions", json=body)
            except httpx.HTTPError:
                return  # the server is gone
            if reply.status_code == 200 and reply.json().get("choices"):
                answered.append(1)


def test_serve_sigkill_mid_requests_loses_no_answered_request(
        tiny_model_path: Path, tmp_path: Path, reliability) -> None:
    """Each round: a fresh serve, a client asking in a loop, SIGKILL at a random moment.
    Every answer the client received is a committed step of the killed server's run, the
    last one too: it is stored before it goes out, while its tool interval (the agent's own
    time, ended by its next request) is still open."""
    pytest.importorskip("httpx")
    rng = random.Random(20261205)
    kills = lost = answers = 0
    for round_ in range(20):
        out = tmp_path / f"serve{round_}"
        proc, url, run_dir = start_serve(tiny_model_path, out, own_group=True)
        answered: list[int] = []
        stop = threading.Event()
        client = threading.Thread(target=_ask_until_killed, args=(url, answered, stop))
        client.start()
        time.sleep(rng.uniform(0.2, 3.0))
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        client.join(timeout=60)
        kills += 1
        steps = committed_steps(run_dir) or set()
        assert len(steps) >= len(answered), (len(answered), len(steps))
        lost += max(0, len(answered) - len(steps))
        answers += len(answered)
    assert answers >= kills  # the kills fell while requests were being answered
    reliability("kill_points", serve=kills, serve_answers=answers, serve_steps_lost=lost)


def _bfcl_missing() -> str:
    from edgeagent.accuracy import AstChecker
    from edgeagent.errors import UserError

    try:
        AstChecker()
    except UserError as exc:
        return str(exc)
    return ""


def test_accuracy_sigkill_at_random_points_then_resume(
        tiny_tools_model_path: Path, tmp_path: Path, reliability) -> None:
    """`edgeagent accuracy` killed anywhere (BFCL's data loading, a sample mid-decode, the
    results being written): run.db keeps every committed step, and `--resume` ends with
    each sample recorded once and the run complete. Needs the [accuracy] extra."""
    missing = _bfcl_missing()
    if missing:
        pytest.skip(f"needs the [accuracy] extra (bfcl-eval): {missing}")
    from edgeagent.accuracy import read_samples
    from edgeagent.rundir import ACCURACY_RESULTS_FILE

    out = tmp_path / "runs"
    loop = KillLoop(
        new=[str(EDGEAGENT), "accuracy", "--model", str(tiny_tools_model_path),
             "--subset", "simple_python,irrelevance,live_simple", "--limit", "9",
             "--max-new-tokens", "8", "--threads", "1", "--out", str(out)],
        resume=lambda d: [str(EDGEAGENT), "accuracy", "--resume", str(d), "--threads", "1"],
        out=out, cwd=tmp_path, wait_s=(1.0, 10.0), seed=20261206)
    loop.run(kills=12, budget_s=150)
    loop.finish_all(timeout_s=240)
    for run_dir in loop.committed:
        status, kept, _ = _kept(run_dir)
        assert status == "complete"
        assert len({t["task_id"] for t in kept}) == len(kept) == 9
        assert len(read_samples(run_dir)) == 9
        assert json.loads((run_dir / ACCURACY_RESULTS_FILE).read_text())
    assert loop.kills >= 5, f"only {loop.kills} kill points"
    assert loop.lost == 0
    reliability("kill_points", accuracy=loop.kills)
