"""Crafted run directories written through the real RunStore, with round numbers so every
metric can be computed by hand (tests/test_metrics.py spells the arithmetic out).

The default run: two tasks on a 1 GB model with a constant board sensor.
  task a (resolved, 8 s, 60 J):
    step 0: other 0 s, TTFT 1 s (prefill 0.9 s, 100 tokens, none reused), decode 2 s
            (21 tokens), tool 1 s; energy prefill 10, decode 20, tool 5, other 0 J
    step 1: other 1 s, TTFT 0.5 s (prefill 0.4 s, 50 of 200 tokens, 150 reused),
            decode 1 s (11 tokens), tool 0.5 s, retrieval search 0.7 s; energy 4, 10, 2, 3 J
  task b (unresolved, 6 s, 50 J):
    step 0: other 0 s, TTFT 2 s (prefill 1.8 s, 300 tokens), decode 1 s (1 token),
            tool 3 s; energy 20, 10, 15, 0 J
  run: complete, 20 s wall.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgeagent.events import (
    PhaseEnergy,
    RunFinished,
    RunStarted,
    SampleBatch,
    StepRecord,
    TaskRecord,
)
from edgeagent.rundir import RunStore

S = 1_000_000_000  # ns per second
SENSOR = "hwmon:test/power1"


def provenance(sha: str = "a" * 64, device: str = "Board X", sensor: bool = True) -> dict:
    power: dict[str, Any] = {"sources": [], "unavailable": [], "total": None}
    if sensor:
        power = {
            "sources": [{"name": SENSOR, "kind": "power", "scope": "board"}],
            "unavailable": [],
            "total": {"label": SENSOR, "scope": "board", "sources": [SENSOR],
                      "estimated": False},
        }
    return {
        "model": {"name": "m", "sha256": sha, "model_size_bytes": 1_000_000_000,
                  "kv_bytes_per_token": 1000, "quantization": "Q4_K_M", "n_ctx": 4096},
        "device": {"device_model": device, "cpu_model": "cpu", "llama_cpp_python_version": "1"},
        "power": power,
    }


def _pe(j: float | None) -> PhaseEnergy:
    if j is None:
        return PhaseEnergy(None, null_reason="no power source found")
    return PhaseEnergy(j, SENSOR, "board", None)


def step(task: str, idx: int, *, other: float, start: float, ttft: float, prefill_ms: float,
         decode: float, tool: float, ctx: int, reused: int, decoded: int,
         energy: Sequence[float | None], retrieval_search_ms: float | None = None) -> StepRecord:
    """Times in seconds from the run start; energy: prefill, decode, tool, other J."""
    t0 = int(start * S)
    first = t0 + int(ttft * S)
    end = first + int(decode * S)
    tool_end = end + int(tool * S)
    return StepRecord(
        task_id=task, attempt=0, step=idx, t_start_ns=t0, t_first_token_ns=first,
        t_decode_end_ns=end, t_tool_start_ns=end, t_tool_end_ns=tool_end, wall_start=0.0,
        context_tokens=ctx, reused_tokens=reused, prefill_tokens=ctx - reused,
        decoded_tokens=decoded, prefill_ms=prefill_ms, ttft_ms=ttft * 1000,
        decode_ms=decode * 1000,
        tpot_ms=decode * 1000 / (decoded - 1) if decoded > 1 else None, sample_ms=None,
        kv_cache_bytes=(ctx + decoded) * 1000, spec_drafted=None, spec_accepted=None,
        action_name="run", action_args={}, format_error=None, raw_output="", observation="",
        tool_exit_code=0, tool_ms=tool * 1000, tool_error=False, observation_tokens=0,
        observation_truncated=False, retrieval_search_ms=retrieval_search_ms,
        energy_prefill=_pe(energy[0]), energy_decode=_pe(energy[1]),
        energy_tool=_pe(energy[2]), energy_other=_pe(energy[3]),
        t_other_start_ns=int(other * S),
    )


def task(task_id: str, steps: Sequence[StepRecord], *, outcome: str, wall_s: float,
         energy_j: float | None, termination: str = "submitted",
         error: str | None = None) -> TaskRecord:
    def phase(p: str) -> float | None:
        vals = [getattr(s, f"energy_{p}").joules for s in steps]
        return None if any(v is None for v in vals) else sum(vals)

    return TaskRecord(
        task_id=task_id, attempt=0, outcome=outcome, termination=termination,
        steps=len(steps), wall_ms=wall_s * 1000,
        context_tokens_final=steps[-1].context_tokens if steps else 0,
        prefill_tokens=sum(s.prefill_tokens for s in steps),
        decoded_tokens=sum(s.decoded_tokens for s in steps),
        reused_tokens=sum(s.reused_tokens for s in steps),
        prefill_ms=sum(s.prefill_ms for s in steps), decode_ms=sum(s.decode_ms for s in steps),
        tool_ms=sum(s.tool_ms for s in steps), format_errors=0, energy_j=energy_j,
        energy_null_reason=None if energy_j is not None else "no power source found",
        grading_output="", energy_prefill_j=phase("prefill"), energy_decode_j=phase("decode"),
        energy_tool_j=phase("tool"), energy_other_j=phase("other"),
        average_w=energy_j / wall_s if energy_j is not None else None, error=error,
    )


def default_tasks() -> list[tuple[TaskRecord, list[StepRecord]]]:
    a = [
        step("a", 0, other=0, start=0, ttft=1, prefill_ms=900, decode=2, tool=1, ctx=100,
             reused=0, decoded=21, energy=(10, 20, 5, 0)),
        step("a", 1, other=4, start=5, ttft=0.5, prefill_ms=400, decode=1, tool=0.5, ctx=200,
             reused=150, decoded=11, energy=(4, 10, 2, 3), retrieval_search_ms=700),
    ]
    b = [
        step("b", 0, other=10, start=10, ttft=2, prefill_ms=1800, decode=1, tool=3, ctx=300,
             reused=0, decoded=1, energy=(20, 10, 15, 0)),
    ]
    return [
        (task("a", a, outcome="resolved", wall_s=8, energy_j=60), a),
        (task("b", b, outcome="unresolved", wall_s=6, energy_j=50), b),
    ]


def uniform_tasks(n: int, wall_s: float = 2.0, energy_j: float | None = 10.0,
                  ) -> list[tuple[TaskRecord, list[StepRecord]]]:
    """n identical one-step tasks laid end to end (enough of them for a p90)."""
    out = []
    for i in range(n):
        t0 = i * wall_s
        e = None if energy_j is None else energy_j / 5
        steps = [step(f"t{i:02d}", 0, other=t0, start=t0, ttft=0.5, prefill_ms=400, decode=0.5,
                      tool=0.5, ctx=100, reused=0, decoded=6, energy=(e, e, e, e))]
        out.append((task(f"t{i:02d}", steps, outcome="resolved", wall_s=wall_s,
                         energy_j=energy_j), steps))
    return out


def samples(n: int = 20, mhz: Sequence[float] | None = None, cpu: float = 100.0,
            watts: float = 7.5) -> list[tuple[Any, ...]]:
    """One sample a second: busy CPU at a steady clock unless `mhz` says otherwise."""
    clocks = list(mhz) if mhz is not None else [3000.0] * n
    return [(i * S, cpu, 1 << 20, 50.0, clocks[i], ((SENSOR, watts),)) for i in range(n)]


def write_run(
    run_dir: Path,
    tasks: Sequence[tuple[TaskRecord, Sequence[StepRecord]]] | None = None,
    *,
    status: str | None = "complete",
    suite: str = "s",
    config: dict[str, Any] | None = None,
    prov: dict[str, Any] | None = None,
    wall_ms: float = 20_000,
    sample_rows: Sequence[tuple[Any, ...]] | None = None,
    task_ids: Sequence[str] | None = None,
) -> Path:
    """A run directory; status None leaves it as a crash does (no RunFinished)."""
    tasks = default_tasks() if tasks is None else tasks
    run_dir.mkdir(parents=True, exist_ok=True)
    store = RunStore(run_dir, config if config is not None else {"suite": suite, "model": "m"})
    ids = tuple(task_ids) if task_ids is not None else tuple(t.task_id for t, _ in tasks)
    store.emit(RunStarted(run_dir.name, str(run_dir), suite, ids,
                          prov if prov is not None else provenance()))
    store.emit(SampleBatch(tuple(sample_rows if sample_rows is not None else samples())))
    for record, steps in tasks:
        for s in steps:
            store.emit(s)
        store.emit(record)
    if status is not None:
        energies = [t.energy_j for t, _ in tasks]
        total = None if any(e is None for e in energies) else sum(energies)
        store.emit(RunFinished(run_dir.name, status, tuple(t for t, _ in tasks), wall_ms,
                               energy_j=total, sample_hz=1.0))
    store.close()
    return run_dir


def add_column(run_dir: Path, table: str, column: str, value: Any) -> None:
    """A field a later schema adds (e.g. replay's dropped turns), set on every row."""
    db = sqlite3.connect(run_dir / "run.db")
    with db:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        db.execute(f"UPDATE {table} SET {column} = ?", (value,))
    db.close()


def replace_task(record: TaskRecord, **changes: Any) -> TaskRecord:
    return dataclasses.replace(record, **changes)
