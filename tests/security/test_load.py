"""Load: a 200-step trajectory through the real runner (sandbox, meter, store) keeps the
process's memory flat and the run directory's size linear in steps.

The engine is scripted (a fixed cycle of tool calls with a constant context size), so 200 steps
take seconds and never overflow the context; everything around it is the real run.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import psutil

from edgeagent.config import load_config
from edgeagent.engine.base import Generation, Message
from edgeagent.events import Event, StepRecord
from edgeagent.runner import execute_run

STEPS = 200
CYCLE = [
    {"name": "read_file", "arguments": {"path": "calc.py"}},
    {"name": "list_dir", "arguments": {"path": "."}},
    {"name": "grep", "arguments": {"pattern": "def", "path": "."}},
    {"name": "edit", "arguments": {"path": "calc.py", "old": "a - b", "new": "a - b"}},
]


class ScriptedEngine:
    n_ctx = 8192

    def __init__(self) -> None:
        self.calls = 0

    def provenance(self) -> dict:
        return {"engine": "scripted-load-test"}

    def count_tokens(self, text: str) -> int:
        return len(text) // 4

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        return text[: max_tokens * 4]

    def generate(self, messages: list[Message], *, max_tokens: int, grammar=None,
                 max_context_tokens=None) -> Generation:
        t0 = time.monotonic_ns()
        self.calls += 1
        if self.calls % 20 == 0:  # every 20th step runs a sandboxed command
            action = {"name": "run", "arguments": {"command": "echo step"}}
        else:
            action = CYCLE[self.calls % len(CYCLE)]
        t1 = time.monotonic_ns()
        # a constant context: the load is the run's bookkeeping, not a growing prompt
        return Generation(json.dumps(action), (), "stop", 600, 590, 10, 8, t0, t0, t1, t1,
                          (t1,))


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
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            if not f.endswith("-shm"):
                total += os.path.getsize(os.path.join(root, f))
    return total


def test_200_steps_keep_memory_flat_and_store_linear(
    tiny_model_path: Path, tmp_path: Path, reliability
) -> None:
    config = load_config(None, {
        "model": str(tiny_model_path), "out": str(tmp_path / "runs"), "tasks": ["fix-add"],
        "max_steps": STEPS, "wall_s": 300.0,
    })
    probe = Probe([])
    engine = ScriptedEngine()
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
