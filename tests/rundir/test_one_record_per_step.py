"""A replay turn's score (and an accuracy sample's verdict) is stored with its step, in the
step's commit: neither is kept without the other. The turns read back join the judgement
with the step's own row; a run directory written before, with its turns only in
replay_turns.jsonl, still reads from the file."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest
from run_fixture import provenance, step

from edgeagent.errors import StoreError
from edgeagent.events import RunStarted, Scored
from edgeagent.rundir import TURNS_FILE, RunStore, judgement, read_run, read_turns


def _turn(conv: str, n: int, status: str = "completed") -> dict:
    return {"conversation_id": conv, "turn": 2 * n + 1, "step": n, "status": status,
            "reason": None if status == "completed" else "turn timeout: 600 s",
            "score": 0.5, "reference_executables": ["pytest"],
            "predicted_executables": ["pytest"] if status == "completed" else None,
            "domain": "coding", "own_score": None}


def _step(conv: str, n: int, scored: str | None):
    s = step(conv, n, other=0.0, start=float(n), ttft=0.2, prefill_ms=150.0, decode=0.5,
             tool=0.1, ctx=1000 + n, reused=900, decoded=11, energy=(None,) * 4)
    return dataclasses.replace(s, raw_output=f"answer {n}", scored=scored)


def _store(run_dir: Path) -> RunStore:
    store = RunStore(run_dir, {"model": "m"})
    store.emit(RunStarted(run_dir.name, str(run_dir), "replay:x", ("c1",), provenance()))
    return store


def test_a_turn_reads_back_its_judgement_joined_with_its_step(tmp_path: Path) -> None:
    store = _store(tmp_path / "r")
    store.emit(_step("c1", 0, judgement(_turn("c1", 0))))
    store.emit(Scored("c1", 0, 1, judgement(_turn("c1", 1, "dropped"))))
    store.close()
    turns = read_turns(tmp_path / "r")
    assert [(t["step"], t["status"]) for t in turns] == [(0, "completed"), (1, "dropped")]
    first = turns[0]
    assert first["context_tokens"] == 1000 and first["generated"] == "answer 0"
    assert first["latency_ms"] == pytest.approx(700.0) and first["tool_ms"] == pytest.approx(100)
    assert first["score"] == 0.5 and first["predicted_executables"] == ["pytest"]
    assert turns[1]["context_tokens"] is None and turns[1]["reason"].startswith("turn timeout")


def test_a_step_and_its_judgement_commit_together_or_not_at_all(tmp_path: Path) -> None:
    store = _store(tmp_path / "r")
    store.emit(_step("c1", 0, judgement(_turn("c1", 0))))
    store.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON scored "
                     "BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
    with pytest.raises(StoreError):
        store.emit(_step("c1", 1, judgement(_turn("c1", 1))))
    store.db.close()
    db = sqlite3.connect(tmp_path / "r" / "run.db")
    assert db.execute("SELECT step FROM steps").fetchall() == [(0,)]  # step 1 rolled back
    assert db.execute("SELECT step FROM scored").fetchall() == [(0,)]
    assert len(read_run(tmp_path / "r").scored) == 1


def test_an_older_run_reads_its_turns_file_and_a_resumed_one_both(tmp_path: Path) -> None:
    run = tmp_path / "r"
    store = _store(run)
    store.emit(_step("c2", 0, judgement(_turn("c2", 0))))
    store.close()
    old = [dict(_turn("c1", 0), context_tokens=5), dict(_turn("c2", 0), context_tokens=7)]
    (run / TURNS_FILE).write_text("".join(json.dumps(t) + "\n" for t in old) + '{"cut',
                                  encoding="utf-8")
    turns = read_turns(run)
    # c1 only in the file (written before turns were stored); c2 stored: the store wins
    assert [(t["conversation_id"], t["context_tokens"]) for t in turns] == [
        ("c1", 5), ("c2", 1000)]
