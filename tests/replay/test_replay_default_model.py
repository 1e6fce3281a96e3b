"""`edgeagent replay` with no arguments on the real default model: the bundled smoke
trajectories replay with 0 dropped turns and the KV cache carries across teacher-forced turns.

Slow (about a minute of inference on 2 cores); marked `model`.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.model

EDGEAGENT = str(Path(sys.executable).with_name("edgeagent"))


@pytest.mark.slow
def test_default_replay_is_a_smoke_check_and_reuses_the_cache(tmp_path: Path) -> None:
    proc = subprocess.run([EDGEAGENT, "replay", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "result_summary.json").read_text())
    # the bundled workload has too few conversations for a p90: a smoke check
    assert summary["result"] == "SMOKE" and summary["turns_dropped"] == 0
    assert summary["turns_completed"] == summary["turns_total"] >= 12
    db = sqlite3.connect(run_dir / "run.db")
    steps = db.execute("SELECT task_id, step, context_tokens, reused_tokens FROM steps"
                       " ORDER BY rowid").fetchall()
    assert len(steps) == summary["turns_completed"]
    # only the very first turn starts from an empty cache
    assert steps[0][3] == 0 and all(reused > 0 for *_, reused in steps[1:])
    for (task, _, ctx, _), (task2, _, _, reused) in zip(steps, steps[1:], strict=False):
        if task == task2:
            assert reused >= ctx - 1  # the whole previous prompt was kept


def test_long_workload_passes_8192_tokens_and_auto_context_holds_it(
    capsys: pytest.CaptureFixture[str]
) -> None:
    # tokenizer only (about a second): the long workload's contexts with the default model
    from edgeagent import cli
    from edgeagent.config import load_config
    from edgeagent.replay import load_dataset
    from edgeagent.run import choose_context
    from edgeagent.suite import suites_root

    long = suites_root() / "replay" / "long.jsonl"
    assert cli.main(["replay", str(long), "--isl", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["distribution"]["turns"] == 32 and report["distribution"]["max"] > 8192
    config = load_config(None, {"max_new_tokens": 1024})
    choice = choose_context(config, load_dataset(long), progress=False)
    assert choice.largest_isl == report["distribution"]["max"]
    assert choice.largest_isl + 1024 <= choice.n_ctx <= choice.n_ctx_train
