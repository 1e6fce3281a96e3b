"""Load: a 200-step trajectory through the real runner (sandbox, meter, store) keeps the
process's memory flat and the run directory's size linear in steps.

The engine is scripted (a fixed cycle of tool calls with a constant context size), so 200 steps
take seconds and never overflow the context; everything around it is the real run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import psutil
import pytest
from scripted import ScriptedEngine

from edgeagent.config import load_config
from edgeagent.engine.base import Generation, Message
from edgeagent.events import Event, StepRecord
from edgeagent.run import execute_run

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow

STEPS = 200
CYCLE = [
    {"name": "read_file", "arguments": {"path": "calc.py"}},
    {"name": "list_dir", "arguments": {"path": "."}},
    {"name": "grep", "arguments": {"pattern": "def", "path": "."}},
    {"name": "edit", "arguments": {"path": "calc.py", "old": "a - b", "new": "a - b"}},
]


class CycleEngine(ScriptedEngine):
    # a constant context: the load is the run's bookkeeping, not a growing prompt
    context_tokens, reused_tokens, decoded_tokens = 600, 590, 8

    def provenance(self) -> dict:
        return {"engine": "scripted-load-test"}

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        step = call + 1
        if step % 20 == 0:  # every 20th step runs a sandboxed command
            action = {"name": "run", "arguments": {"command": "echo step"}}
        else:
            action = CYCLE[step % len(CYCLE)]
        return json.dumps(action), "stop"


class Probe:
    def __init__(self, run_dirs: list[Path]) -> None:
        self.rss: list[int] = []
        self.sizes: dict[int, int] = {}
        self.run_dirs = run_dirs
        self.proc = psutil.Process()

    def emit(self, event: Event) -> None:
        if isinstance(event, StepRecord):
            self.rss.append(self.proc.memory_info().rss)
            n = len(self.rss)
            if n % 50 == 0 and self.run_dirs:
                self.sizes[n] = _du(self.run_dirs[0])
        elif hasattr(event, "run_dir") and isinstance(event.run_dir, str):
            self.run_dirs.append(Path(event.run_dir))


def _du(path: Path) -> int:
    """The run directory's logical size: run.db's pages in use, read by a reader connection
    (it sees committed rows wherever they are, in the WAL or the main file), plus every other
    file. The files' own sizes depend on when SQLite checkpoints the WAL, which a loaded
    machine shifts: twice the linearity check failed on it."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            full = os.path.join(root, f)
            if f == "run.db":
                total += _pages_in_use(full)
            elif not f.endswith(("-shm", "-wal")):
                total += os.path.getsize(full)
    return total


def _pages_in_use(db: str) -> int:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        pages, free, size = (con.execute(f"PRAGMA {p}").fetchone()[0]
                             for p in ("page_count", "freelist_count", "page_size"))
    finally:
        con.close()
    return (pages - free) * size


def test_200_steps_keep_memory_flat_and_store_linear(
    tiny_model_path: Path, tmp_path: Path, reliability
) -> None:
    config = load_config(None, {
        "model": str(tiny_model_path), "out": str(tmp_path / "runs"), "tasks": ["fix-add"],
        "max_steps": STEPS, "wall_s": 300.0,
        # the script's fixed cycle of calls is what the stuck rule ends, and the step budget
        # after its draft (which changes no line); here it must run on
        "stuck_after": 0, "after_draft_steps": 0,
    })
    probe = Probe([])
    engine = CycleEngine()
    t0 = time.monotonic()
    result = execute_run(config, sinks=[probe], engine_factory=lambda p, c: engine,
                         progress=False)
    elapsed = time.monotonic() - t0
    assert result.status == "complete"
    assert len(probe.rss) == STEPS, "the trajectory stopped early"
    warm = probe.rss[19]  # after the first steps have allocated what every step needs
    growth = (max(probe.rss[20:]) - warm) / warm
    assert growth < 0.10, f"RSS grew {growth:.1%} over {STEPS} steps"
    # linear: the second 100 steps add about as much as the steps 50-100 did per step
    s = probe.sizes
    early = (s[100] - s[50]) / 50
    late = (s[200] - s[100]) / 100
    assert 0.5 * early <= late <= 2.0 * early, (s, early, late)
    reliability("load", steps=STEPS, rss_growth_permille=round(growth * 1000),
                store_bytes_per_step=round(late), seconds=round(elapsed))


# --- a 4-hour-equivalent replay at accelerated time ---------------------------------------

REPLAY_CONVERSATIONS = 48
REPLAY_TURNS = 15  # assistant turns per conversation: 720 in all
RECORDED_DELAY_S = 20.0  # 720 x 20 s = 4 hours of recorded tool wait, not slept


def _four_hour_dataset(path: Path) -> None:
    """MLPerf-format rows: each turn one bash call whose recorded result took 20 s."""
    rows: list[dict] = []
    tools = [{"type": "function", "function": {
        "name": "bash", "description": "run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                       "required": ["command"]}}}]
    for c in range(REPLAY_CONVERSATIONS):
        cid = f"load-{c:03d}"
        rows.append({"conversation_id": cid, "turn": 1, "role": "user",
                     "content": f"Fix issue {c}.", "system": "You are a coding agent.",
                     "tools": tools})
        turn = 2
        for t in range(REPLAY_TURNS):
            call_id = f"call_{t}"
            rows.append({"conversation_id": cid, "turn": turn, "role": "assistant",
                         "tool_calls": [{"id": call_id, "type": "function", "function": {
                             "name": "bash",
                             "arguments": json.dumps({"command": f"grep -n x f{t}.py"})}}]})
            rows.append({"conversation_id": cid, "turn": turn + 1, "role": "tool",
                         "tool_results": [{"tool_call_id": call_id,
                                           "content": f"f{t}.py:{t}: x = {t}"}],
                         "delay_seconds": RECORDED_DELAY_S})
            turn += 2
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


class ReplayEngine(CycleEngine):
    def generate(self, messages: list[Message], *, max_tokens: int, grammar=None,
                 max_context_tokens=None, on_token=None) -> Generation:
        t0 = time.monotonic_ns()
        self.calls += 1
        text = json.dumps({"name": "run", "arguments": {"command": "grep -n x f.py"}})
        t1 = time.monotonic_ns()
        prompt = sum(len(m.content) for m in messages) // 4
        return Generation(text, (), "stop", prompt, max(0, prompt - 40), 40, 8, t0, t0, t1,
                          t1, (t1,))


def test_four_hour_replay_at_accelerated_time_keeps_memory_flat_and_store_linear(
    tiny_model_path: Path, tmp_path: Path, reliability
) -> None:
    from edgeagent.replay.dataset import load_dataset
    from edgeagent.run import ReplaySource, execute_replay

    dataset = tmp_path / "four-hours.jsonl"
    _four_hour_dataset(dataset)
    conversations = load_dataset(dataset)
    turns = REPLAY_CONVERSATIONS * REPLAY_TURNS
    assert sum(r.delay_seconds or 0 for c in conversations for r in c.rows) == 4 * 3600
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path / "runs"),
                                "suite": "replay:load", "max_new_tokens": 64})
    probe = Probe([])
    t0 = time.monotonic()
    result = execute_replay(config, ReplaySource(str(dataset), conversations), sinks=[probe],
                            engine_factory=lambda p, c: ReplayEngine(), progress=False)
    elapsed = time.monotonic() - t0
    assert result.status == "complete"
    assert len(probe.rss) == turns
    assert elapsed < 4 * 3600 / 60  # at least 60x faster than the recorded timeline
    warm = probe.rss[REPLAY_TURNS * 2]  # after the first conversations
    growth = (max(probe.rss[REPLAY_TURNS * 2:]) - warm) / warm
    assert growth < 0.10, f"RSS grew {growth:.1%} over {turns} turns"
    s = probe.sizes  # run directory size every 50 turns
    early = (s[200] - s[100]) / 100
    late = (s[700] - s[200]) / 500
    assert 0.5 * early <= late <= 2.0 * early, (s, early, late)
    reliability("load_replay", turns=turns, recorded_hours=4,
                rss_growth_permille=round(growth * 1000), store_bytes_per_turn=round(late),
                seconds=round(elapsed))
