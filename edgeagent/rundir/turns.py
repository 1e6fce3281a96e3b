"""A replay's turns read back: one record a turn, in replay_turns.jsonl's shape.

A generated turn is one step: its timing and text are the step's row, and its judgement (the
MLPerf score, the recorded and predicted actions) is stored beside it in the same commit
(the `scored` table), so neither exists without the other. A dropped turn has no step: its
judgement alone is stored. replay_turns.jsonl is made from these when the run closes; a run
directory written before the judgements were stored (its turns only in the file) is read
from the file, and a resumed one from both, each conversation from one of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .files import TURNS_FILE, replace_file
from .read import Row, StoredRun, read_run

# a turn's fields, in the file's order: the judgement's and the step's
TURN_FIELDS = ("conversation_id", "turn", "step", "status", "reason", "score",
               "reference_executables", "predicted_executables", "context_tokens",
               "reused_tokens", "prefill_tokens", "decoded_tokens", "ttft_ms", "tpot_ms",
               "latency_ms", "tool_ms", "generated", "domain", "own_score")
# the fields a turn's step holds; a dropped turn has none of them
STEP_FIELDS = ("context_tokens", "reused_tokens", "prefill_tokens", "decoded_tokens",
               "ttft_ms", "tpot_ms", "latency_ms", "tool_ms", "generated")


def judgement(turn: dict[str, Any]) -> str:
    """What a turn's step stores beside it: the turn's fields its step does not hold."""
    return json.dumps({k: v for k, v in turn.items()
                       if k not in STEP_FIELDS and k not in ("conversation_id", "step")},
                      ensure_ascii=False)


def _from_step(step: Row | None) -> dict[str, Any]:
    if step is None:
        return dict.fromkeys(STEP_FIELDS)
    return {
        "context_tokens": step["context_tokens"], "reused_tokens": step["reused_tokens"],
        "prefill_tokens": step["prefill_tokens"], "decoded_tokens": step["decoded_tokens"],
        "ttft_ms": step["ttft_ms"], "tpot_ms": step["tpot_ms"],
        "latency_ms": (step["t_decode_end_ns"] - step["t_start_ns"]) / 1e6,
        "tool_ms": step["tool_ms"], "generated": step["raw_output"],
    }


def turns_of(stored: StoredRun, run_dir: Path) -> list[dict[str, Any]]:
    """The turns of the attempts that count: the stored ones, after those only the file
    holds (conversations of a run written before turns were stored)."""
    steps = {(s["task_id"], s["attempt"], s["step"]): s for s in stored.steps}
    stored_turns = []
    for row in stored.scored:
        turn = {"conversation_id": row["task_id"], "step": row["step"],
                **json.loads(row["scored_json"]),
                **_from_step(steps.get((row["task_id"], row["attempt"], row["step"])))}
        stored_turns.append({k: turn.get(k) for k in TURN_FIELDS})
    in_store = {t["conversation_id"] for t in stored_turns}
    return [t for t in _file_turns(run_dir) if t.get("conversation_id") not in in_store] \
        + stored_turns


def read_turns(run_dir: Path | str) -> list[dict[str, Any]]:
    run_dir = Path(run_dir)
    return turns_of(read_run(run_dir, samples=False), run_dir)


def _file_turns(run_dir: Path) -> list[dict[str, Any]]:
    path = Path(run_dir) / TURNS_FILE
    if not path.is_file():
        return []
    turns = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            turn = json.loads(line)
        except ValueError:
            continue  # a line a kill cut short
        if isinstance(turn, dict):
            turns.append(turn)
    return turns


def write_turns_file(run_dir: Path) -> None:
    """replay_turns.jsonl from the stored turns, replaced whole (readers outside edgeagent
    and older tools read the file)."""
    run_dir = Path(run_dir)
    replace_file(run_dir / TURNS_FILE,
                 "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in read_turns(run_dir)))
