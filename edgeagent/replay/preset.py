"""`edgeagent replay --mlperf`: MLPerf Edge Agentic's run settings in one flag.

The values are those of MLPerf's reference configuration (mlcommons/endpoints,
examples/11_Edge_Agentic_Example/online_edge_full_run.yaml): model_params temperature 0,
seed 42, max_new_tokens 1024; agentic_inference turn_timeout_s 600; single stream
(target_concurrency, num_workers and max_connections 1). Its README adds a served context
that holds the dataset's longest turn (32768 for the 27B model, whose peak ISL is ~23.5K):
here, the longest prompt plus max_new_tokens must fit the model's training context, checked
with the tokenizer alone before any weights load. A flag given beside --mlperf with another
value is refused rather than silently overridden, so a run is never half a preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError

if TYPE_CHECKING:  # the preset loads with the CLI; the tokenizer's code only when used
    from .isl import ContextChoice

SOURCE = ("mlcommons/endpoints examples/11_Edge_Agentic_Example/online_edge_full_run.yaml "
          "and its README")
# each preset key's flag, for the message that names a contradicting one
FLAGS = {"temperature": "--temperature", "seed": "--seed", "max_new_tokens": "--max-new-tokens",
         "turn_timeout_s": "--turn-timeout-s"}


@dataclass(frozen=True)
class Preset:
    name: str
    temperature: float
    seed: int
    max_new_tokens: int
    turn_timeout_s: float
    concurrency: int  # requests in flight at a time (MLPerf's target_concurrency)
    source: str

    def settings(self) -> dict[str, Any]:
        """The config keys the preset sets."""
        return {key: getattr(self, key) for key in FLAGS}

    def record(self, *, turn_timeout_enforced: bool) -> dict[str, Any]:
        """What config.yaml and provenance.json keep as `replay.preset`."""
        return {**asdict(self), "turn_timeout_enforced": turn_timeout_enforced}


MLPERF = Preset("mlperf-edge-agentic", temperature=0.0, seed=42, max_new_tokens=1024,
                turn_timeout_s=600.0, concurrency=1, source=SOURCE)


def apply_preset(given: Mapping[str, Any], preset: Preset = MLPERF) -> dict[str, Any]:
    """The config overrides with the preset's settings; a flag given with another value is a
    one-line error naming it."""
    for key, value in preset.settings().items():
        asked = given.get(key)
        if asked is not None and asked != value:
            flag = FLAGS[key]
            raise ConfigError(f"{flag} {asked:g} contradicts --mlperf (MLPerf's run settings: "
                              f"{key} {value:g}); drop {flag} or --mlperf")
    return {**given, **preset.settings()}


def require_context(choice: ContextChoice, n_ctx: int | None,
                    preset: Preset = MLPERF) -> None:
    """Refuse, before loading, a dataset whose longest turn plus the preset's generation
    budget cannot fit the model's training context or the `--n-ctx` given."""
    if choice.largest_isl is None:
        raise ConfigError("--mlperf through --endpoint needs --tokenizer GGUF (the model whose "
                          "tokenizer measures the longest turn before the replay starts)")
    needed = choice.largest_isl + preset.max_new_tokens
    where = choice.largest_turn or "the longest turn"
    size = f"{needed} tokens (ISL {choice.largest_isl} + max_new_tokens {preset.max_new_tokens})"
    if choice.n_ctx_train is not None and needed > choice.n_ctx_train:
        raise ConfigError(f"--mlperf: {where} needs a context of {size}, more than the model's "
                          f"training context {choice.n_ctx_train}; use a model trained on at "
                          "least that many tokens, or leave that conversation out with "
                          "--conversations")
    if n_ctx is not None and n_ctx < needed:
        raise ConfigError(f"--n-ctx {n_ctx} is smaller than the {size} {where} needs with "
                          f"--mlperf; give --n-ctx auto or at least {needed}")
