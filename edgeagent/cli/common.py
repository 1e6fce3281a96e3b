"""What several commands share: the flag groups (engine, meter, endpoint, speculative) and the
stop flag that turns Ctrl-C and SIGTERM into a safe stop."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

# the config keys each flag group sets (config.py names them; the flags are their dashed forms)
ENGINE_KEYS = ("model", "n_ctx", "threads", "threads_batch", "n_batch", "n_ubatch",
               "flash_attn", "type_k", "type_v", "gpu_layers", "mlock", "mmap", "seed",
               "grammar", "tool_format")
ON_OFF = {"1": True, "on": True, "true": True, "yes": True,
          "0": False, "off": False, "false": False, "no": False}
METER_KEYS = ("power_root", "power_estimate_tdp", "sample_interval_s", "allow_interference")
ENDPOINT_KEYS = ("endpoint", "api_key_env", "served_model", "endpoint_constraint",
                 "turn_timeout_s", "tokenizer")
SPEC_KEYS = ("spec", "spec_ngram", "spec_max_draft")
SAMPLING_KEYS = ("temperature", "top_p", "repeat_penalty")  # with seed (ENGINE_KEYS)


class StopFlag:
    """First Ctrl-C or SIGTERM: stop after the current step. A second: abort at once.

    SIGTERM is what systemd, docker stop and CI runners send: it gets the same safe stop, so
    a run stopped by its supervisor keeps every step and records `interrupted`.
    """

    def __init__(self) -> None:
        self.requested = False
        self.signum: int | None = None

    def __call__(self) -> bool:
        return self.requested

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
        return 128 + (self.signum or signal.SIGINT)

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return

        def handler(signum: int, frame: Any) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.requested, self.signum = True, signum
            name = "interrupt" if signum == signal.SIGINT else signal.Signals(signum).name
            print(
                f"\n{name}: stopping after the current step (Ctrl-C again to abort now)",
                file=sys.stderr, flush=True,
            )

        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)


def abort_on_signals() -> list[int]:
    """For a command with no step to finish at (index): Ctrl-C and SIGTERM both abort at
    once, as KeyboardInterrupt, so its cleanup runs (SIGTERM's default would skip it); the
    list receives the signal, for the exit code (128 + it)."""
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        return got

    def handler(signum: int, frame: Any) -> None:
        got.append(signum)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
    return got


def on_off(text: str) -> bool:
    """1/0, on/off, true/false, yes/no (llama-bench writes -fa 1)."""
    value = ON_OFF.get(text.strip().lower())
    if value is None:
        raise argparse.ArgumentTypeError(f"expected 1 or 0 (on/off), got {text!r}")
    return value


def flash_attn_value(text: str) -> str:
    """auto, on or off (1/0, true/false, yes/no as on/off)."""
    from ..engine import flash_attn_mode

    mode = flash_attn_mode(text)
    if mode is None:
        raise argparse.ArgumentTypeError(f"expected auto, on or off (1/0), got {text!r}")
    return mode


def n_ctx_value(text: str) -> int | str:
    """`--n-ctx N`, or `auto` where the command sizes the context itself (replay)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or auto, got {text!r}") from None


def add_engine_flags(p: argparse.ArgumentParser, *, n_ctx_default: str = "",
                     n_ctx_auto: bool = False) -> None:
    """`--model`, `--n-ctx`, the llama.cpp settings (threads, batches, flash attention, KV
    cache types, offload, mlock, mmap), `--seed`, `--no-grammar`, `--tool-format`;
    `n_ctx_auto`: `--n-ctx` also takes `auto`."""
    from ..config import KV_CACHE_TYPES

    p.add_argument("--model", help="known model name or path to a .gguf file")
    p.add_argument("--n-ctx", type=n_ctx_value if n_ctx_auto else int,
                   metavar="auto|N" if n_ctx_auto else None,
                   help="llama.cpp context window" + n_ctx_default)
    g = p.add_argument_group("llama.cpp settings (recorded and read back in provenance.json)")
    g.add_argument("--threads", type=int,
                   help="CPU threads for llama.cpp (0 or unset: one per CPU; the number used "
                   "is recorded in provenance.json)")
    g.add_argument("--threads-batch", type=int, metavar="N",
                   help="threads for prompt processing (default: --threads)")
    g.add_argument("--n-batch", type=int, metavar="N",
                   help="logical batch: prompt tokens per llama_decode call (512)")
    g.add_argument("--n-ubatch", type=int, metavar="N",
                   help="physical batch: tokens computed at once, at most --n-batch (512, or "
                   "--n-batch if smaller)")
    g.add_argument("--flash-attn", type=flash_attn_value, metavar="auto|on|off",
                   help="flash attention (default auto: off on the CPU, where llama.cpp's "
                   "kernel measured slower; llama.cpp's own choice on a GPU or with a "
                   "quantized V cache; 1/0 are on/off)")
    g.add_argument("--kv-type", choices=KV_CACHE_TYPES,
                   help="KV cache type for both K and V (a quantized V needs flash attention "
                   "auto or on)")
    g.add_argument("--type-k", choices=KV_CACHE_TYPES, help="K cache type (f16)")
    g.add_argument("--type-v", choices=KV_CACHE_TYPES, help="V cache type (f16)")
    g.add_argument("--gpu-layers", type=int, help="layers to offload to a GPU")
    g.add_argument("--mlock", type=on_off, metavar="1|0",
                   help="lock the model in RAM (default 0)")
    g.add_argument("--mmap", type=on_off, metavar="1|0",
                   help="map the model file instead of reading it (default 1)")
    p.add_argument("--seed", type=int, help="sampling seed (recorded)")
    p.add_argument("--no-grammar", dest="grammar", action="store_false", default=None,
                   help="do not constrain tool calls with a grammar")
    p.add_argument("--tool-format", choices=("auto", "native", "text"),
                   help="how tool calls are written: native (the chat template's own syntax "
                   "and tools), text (our JSON protocol in the system prompt), auto "
                   "(default: text for a live run, the measured better one; native for a "
                   "replay where the template supports tools); recorded in the run")


def add_sampling_flags(p: argparse.ArgumentParser) -> None:
    """`--temperature`, `--top-p`, `--repeat-penalty` (live runs; replay is greedy)."""
    g = p.add_argument_group("sampling (default greedy; recorded with --seed in the run)")
    g.add_argument("--temperature", type=float, metavar="T",
                   help="0 (default): greedy; above 0: sampled with --seed")
    g.add_argument("--top-p", type=float, metavar="P",
                   help="nucleus sampling: keep the smallest set of tokens whose probability "
                   "reaches P (0.95; only with --temperature above 0)")
    g.add_argument("--repeat-penalty", type=float, metavar="R",
                   help="divide the logits of the last 64 tokens by R (1.0: off)")


def add_meter_flags(p: argparse.ArgumentParser) -> None:
    """`--power-root`, `--power-estimate-tdp`, `--sample-interval-s`,
    `--allow-interference`."""
    p.add_argument("--power-root", help="read power sensors below this directory (default /)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="allow a CPU-utilisation x TDP estimate when no sensor exists "
                   "(always labelled estimated)")
    p.add_argument("--sample-interval-s", type=float, help="meter sampling interval (0.05)")
    p.add_argument("--allow-interference", action="store_true", default=None,
                   help="accept a run that other processes or steal disturbed: the check "
                   "notes it instead of ruling the timings INVALID (docs/interference.md)")


def add_spec_flags(p: argparse.ArgumentParser) -> None:
    """`--spec`, `--spec-ngram`, `--spec-max-draft` (config keys spec, spec_ngram,
    spec_max_draft)."""
    p.add_argument("--spec", metavar="off|prompt-lookup|draft:MODEL",
                   help="speculative decoding, greedy-exact (default off)")
    p.add_argument("--spec-ngram", type=int, metavar="N",
                   help="prompt lookup: longest n-gram matched against the context (3)")
    p.add_argument("--spec-max-draft", type=int, metavar="K",
                   help="most tokens drafted per target pass (8)")


def add_endpoint_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("OpenAI-compatible endpoint (llama-server, Ollama, vLLM)")
    g.add_argument("--endpoint", metavar="URL",
                   help="drive this /v1/chat/completions server instead of loading --model")
    g.add_argument("--api-key-env", metavar="VAR",
                   help="environment variable that holds the endpoint's API key")
    g.add_argument("--served-model", metavar="NAME",
                   help="model name to request (default: the first one the server lists)")
    g.add_argument("--endpoint-constraint", choices=("auto", "gbnf", "json_schema",
                   "json_object", "none"),
                   help="how the tool-call grammar is sent (default auto: GBNF to llama.cpp "
                   "servers, a JSON schema to others, weaker forms if refused)")
    g.add_argument("--turn-timeout-s", type=float,
                   help="seconds one endpoint turn may take, retries included; replay bounds "
                   "in-process turns too (600)")
    g.add_argument("--tokenizer", metavar="GGUF",
                   help="count tokens with this GGUF's vocabulary when the server sends no "
                   "counts (otherwise they are estimated and marked so)")


def overrides(args: argparse.Namespace, *keys: str) -> dict[str, Any]:
    """The config overrides the flags of `keys` carry (None: not given); `--kv-type` sets
    type_k and type_v where --type-k / --type-v do not."""
    given = {key: getattr(args, key) for key in keys}
    kv_type = getattr(args, "kv_type", None)
    if kv_type is not None:
        for key in ("type_k", "type_v"):
            if key in given and given[key] is None:
                given[key] = kv_type
    return given
