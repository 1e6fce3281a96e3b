"""What several commands share: the flag groups (engine, meter, endpoint, speculative) and the
stop flag that turns Ctrl-C and SIGTERM into a safe stop."""

from __future__ import annotations

import argparse
import dataclasses
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..agent import LimitsConfig
from ..engine import EndpointConfig, LlamaConfig, SamplingConfig, SpecConfig
from ..meter import MeterConfig
from ..settings import Setting, flag_help, flag_name, keys_of, settings_of, value_kind

# the config keys each flag group sets, read from the sections that declare them (a flag is its
# key with dashes; its help and default come from the section: settings.add_flags)
ENGINE_KEYS = ("model", *keys_of(LlamaConfig), "seed", "grammar", "tool_format")
METER_KEYS = ("power_root", "power_estimate_tdp", "sample_interval_s", "allow_interference")
ENDPOINT_KEYS = keys_of(EndpointConfig)
SPEC_KEYS = keys_of(SpecConfig)
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


def n_ctx_value(text: str) -> int | str:
    """`--n-ctx N`, or `auto` where the command sizes the context itself (replay)."""
    if text == "auto":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or auto, got {text!r}") from None


def add_engine_flags(p: argparse.ArgumentParser, *, n_ctx_default: str | None = None,
                     n_ctx_auto: bool = False) -> None:
    """`--model`, `--n-ctx`, the llama.cpp settings (threads, batches, flash attention, KV
    cache types, offload, mlock, mmap), `--seed`, `--no-grammar`, `--tool-format`;
    `n_ctx_auto`: `--n-ctx` also takes `auto`, `n_ctx_default` the command's own default."""
    from ..config import KV_CACHE_TYPES, RunConfig

    add_flags(p, RunConfig, ("model",))
    add_flags(p, LlamaConfig, ("n_ctx",), parse={"n_ctx": n_ctx_value} if n_ctx_auto else None,
              defaults={"n_ctx": n_ctx_default} if n_ctx_default else None)
    g = p.add_argument_group("llama.cpp settings (recorded and read back in provenance.json)")
    add_flags(g, LlamaConfig, [k for k in keys_of(LlamaConfig) if k != "n_ctx"])
    g.add_argument("--kv-type", choices=KV_CACHE_TYPES,
                   help="KV cache type for both K and V (a quantized V needs flash attention "
                   "auto or on)")
    add_flags(p, SamplingConfig, ("seed",))
    add_flags(p, LimitsConfig, ("grammar", "tool_format"))


def add_sampling_flags(p: argparse.ArgumentParser) -> None:
    """`--temperature`, `--top-p`, `--repeat-penalty` (live runs; replay is greedy)."""
    g = p.add_argument_group("sampling (default greedy; recorded with --seed in the run)")
    add_flags(g, SamplingConfig, SAMPLING_KEYS)


def add_meter_flags(p: argparse.ArgumentParser) -> None:
    """`--power-root`, `--power-estimate-tdp`, `--sample-interval-s`,
    `--allow-interference`."""
    add_flags(p, MeterConfig, METER_KEYS)


def add_spec_flags(p: argparse.ArgumentParser) -> None:
    """`--spec`, `--spec-ngram`, `--spec-max-draft`."""
    add_flags(p, SpecConfig)


def add_endpoint_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("OpenAI-compatible endpoint (llama-server, Ollama, vLLM)")
    add_flags(g, EndpointConfig)


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


def add_flags(parser: Any, section: type | Any, keys: Iterable[str] | None = None, *,
              defaults: Mapping[str, str] | None = None,
              parse: Mapping[str, Callable[[str], Any]] | None = None) -> tuple[str, ...]:
    """Add to `parser` (or an argument group) the flags of `section`'s keys (`keys`: only
    these, in this order). `defaults`: a command's own default for a key, as its help states
    it; `parse`: a command's own reader for a key. Returns the keys added: what the command
    passes on as config overrides. A flag left out is None, so the config's default holds."""
    declared = settings_of(section)
    chosen = list(keys) if keys is not None else [k for k, (_, s) in declared.items() if s.cli]
    for key in chosen:
        field, setting_ = declared[key]
        _add_flag(parser, field, setting_, (defaults or {}).get(key), (parse or {}).get(key))
    return tuple(chosen)


def _add_flag(parser: Any, field: dataclasses.Field, setting_: Setting, default: str | None,
              parse: Callable[[str], Any] | None) -> None:
    name = field.name
    kind = value_kind(field)
    help_ = flag_help(field, setting_, default)
    if kind == "bool" and setting_.parse is None and parse is None:
        action = "store_false" if field.default is True else "store_true"
        parser.add_argument(flag_name(field, setting_), dest=name, default=None, help=help_,
                            action=action)
        return
    own = parse or setting_.parse
    reader = _argparse_type(own) if own else {"int": int, "float": float}.get(kind)
    parser.add_argument(flag_name(field, setting_), dest=name, type=reader,
                        metavar=setting_.metavar, choices=setting_.choices, help=help_)



def _argparse_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """A setting's reader as argparse wants it: its ValueError's words become the flag's
    error (argparse would otherwise say only `invalid on_off value`)."""
    def read(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    read.__name__ = parse.__name__
    return read
