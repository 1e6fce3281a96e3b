"""What several commands share: the flag groups (engine, meter, endpoint, speculative) and the
stop flag that turns Ctrl-C and SIGTERM into a safe stop."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

# the config keys each flag group sets (config.py names them; the flags are their dashed forms)
ENGINE_KEYS = ("model", "n_ctx", "threads", "gpu_layers", "seed", "grammar")
METER_KEYS = ("power_root", "power_estimate_tdp", "sample_interval_s")
ENDPOINT_KEYS = ("endpoint", "api_key_env", "served_model", "endpoint_constraint",
                 "turn_timeout_s", "tokenizer")
SPEC_KEYS = ("spec", "spec_ngram", "spec_max_draft")


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
    """`--model`, `--n-ctx`, `--threads`, `--gpu-layers`, `--seed`, `--no-grammar`;
    `n_ctx_auto`: `--n-ctx` also takes `auto`."""
    p.add_argument("--model", help="known model name or path to a .gguf file")
    p.add_argument("--n-ctx", type=n_ctx_value if n_ctx_auto else int,
                   metavar="auto|N" if n_ctx_auto else None,
                   help="llama.cpp context window" + n_ctx_default)
    p.add_argument("--threads", type=int,
                   help="CPU threads for llama.cpp (0 or unset: one per CPU; the number used "
                   "is recorded in provenance.json)")
    p.add_argument("--gpu-layers", type=int, help="layers to offload to a GPU")
    p.add_argument("--seed", type=int, help="sampling seed (recorded)")
    p.add_argument("--no-grammar", dest="grammar", action="store_false", default=None,
                   help="do not constrain tool calls with a grammar")


def add_meter_flags(p: argparse.ArgumentParser) -> None:
    """`--power-root`, `--power-estimate-tdp`, `--sample-interval-s`."""
    p.add_argument("--power-root", help="read power sensors below this directory (default /)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="allow a CPU-utilisation x TDP estimate when no sensor exists "
                   "(always labelled estimated)")
    p.add_argument("--sample-interval-s", type=float, help="meter sampling interval (0.05)")


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
                   help="seconds one endpoint turn may take, retries included (600)")
    g.add_argument("--tokenizer", metavar="GGUF",
                   help="count tokens with this GGUF's vocabulary when the server sends no "
                   "counts (otherwise they are estimated and marked so)")


def overrides(args: argparse.Namespace, *keys: str) -> dict[str, Any]:
    """The config overrides the flags of `keys` carry (None: not given)."""
    return {key: getattr(args, key) for key in keys}
