"""Input sequence lengths of a dataset without generating: every assistant turn's prompt, as
the replay renders it (replayer.turn_prompts), counted with the model's tokenizer alone; their
distribution as MLPerf's scripts/agentic_inference_isl_precompute.py (mlcommons/endpoints)
prints it; and `--n-ctx auto`, the context that fits the largest of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..engine import Message
from ..results import percentile
from .dataset import Conversation
from .replayer import turn_prompts

# prompt ids of rendered messages and tools: Vocabulary.prompt_tokens, or an engine's own
CountPrompt = Callable[[Sequence[Message], Sequence[Mapping[str, Any]] | None], Sequence[int]]

# llama.cpp rounds a context up to a multiple of 256 itself; auto does the same up front
N_CTX_STEP = 256
N_CTX_MIN = 512  # RunConfig's smallest n_ctx


@dataclass(frozen=True)
class TurnLength:
    conversation_id: str
    turn: int  # the dataset row's turn number
    step: int  # 0-based assistant turn index, as replay_turns.jsonl numbers it
    isl: int


def turn_lengths(conversations: Iterable[Conversation], count: CountPrompt, *, native: bool,
                 last_only: bool = False) -> list[TurnLength]:
    """Each assistant turn's ISL, rendered natively (the dataset's `tools` through the
    template, as MLPerf counts) or in our text format. `last_only`: only each
    conversation's last turn, which is its largest (every prompt extends the one before it)."""
    out: list[TurnLength] = []
    for conv in conversations:
        tools = list(conv.tools) if native and conv.tools else None
        prompts = list(turn_prompts(conv, native))
        for step, prompt in enumerate(prompts):
            if last_only and step != len(prompts) - 1:
                continue
            ids = count(prompt.messages, tools)
            out.append(TurnLength(conv.id, prompt.row.turn, step, len(ids)))
    return out


def distribution(lengths: Sequence[TurnLength]) -> dict[str, float | int] | None:
    """Turn count, min, mean, p50, p90, p99 and max; percentiles interpolate linearly between
    closest ranks, as MLPerf's precompute script does."""
    values = [t.isl for t in lengths]
    if not values:
        return None
    return {"turns": len(values), "min": min(values), "mean": sum(values) / len(values),
            "p50": percentile(values, 50), "p90": percentile(values, 90),
            "p99": percentile(values, 99), "max": max(values)}


def isl_report(lengths: Sequence[TurnLength], tokenizer: str,
               tool_format: str) -> dict[str, Any]:
    """What `edgeagent replay --isl --json` prints and `-o` writes; `tool_format`: how the
    prompts were rendered (native: MLPerf's own ISL; text: our fallback protocol)."""
    return {"tokenizer": tokenizer, "tool_format": tool_format,
            "distribution": distribution(lengths), "turns": [asdict(t) for t in lengths]}


def isl_text(report: dict[str, Any]) -> str:
    lines = [f"{t['conversation_id']} turn {t['turn']}: {t['isl']}" for t in report["turns"]]
    dist = report["distribution"]
    if dist is None:
        return "\n".join([*lines, "no assistant turn in the dataset"])
    lines += [f"ISL distribution ({dist['turns']} turns, tokenizer {report['tokenizer']}, "
              f"{report['tool_format']} tool format)",
              *(f"  {key:<5}: {dist[key]:.1f}" if key == "mean" else f"  {key:<5}: {dist[key]:.0f}"
                for key in ("min", "mean", "p50", "p90", "p99", "max"))]
    return "\n".join(lines)


@dataclass(frozen=True)
class ContextChoice:
    """The context `--n-ctx auto` chose, and why (recorded in the run)."""

    n_ctx: int
    largest_isl: int | None
    max_new_tokens: int
    n_ctx_train: int | None
    reason: str
    largest_turn: str | None = None  # where the largest prompt is: "conversation C turn N"


def auto_n_ctx(largest_isl: int, max_new_tokens: int, n_ctx_train: int | None) -> ContextChoice:
    """The dataset's largest prompt plus the generation budget, rounded up to llama.cpp's
    step, capped by the model's training context (a turn that still does not fit is dropped
    with the reason, as with any n_ctx)."""
    needed = largest_isl + max_new_tokens
    rounded = max(N_CTX_MIN, -(-needed // N_CTX_STEP) * N_CTX_STEP)
    why = f"largest ISL {largest_isl} + max_new_tokens {max_new_tokens} = {needed}"
    if n_ctx_train is not None and rounded > n_ctx_train:
        return ContextChoice(n_ctx_train, largest_isl, max_new_tokens, n_ctx_train,
                             f"{why}, capped by the model's training context {n_ctx_train}: "
                             "turns longer than that are dropped")
    cap = (f"within the training context {n_ctx_train}" if n_ctx_train is not None
           else "the model records no training context")
    return ContextChoice(rounded, largest_isl, max_new_tokens, n_ctx_train,
                         f"{why}, rounded up to a multiple of {N_CTX_STEP} ({cap})")
