"""`edgeagent serve`: an OpenAI-compatible chat-completions endpoint on loopback whose every
request is recorded as a step of a run directory (docs/agents.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UserError
from .common import (
    ENGINE_KEYS,
    METER_KEYS,
    SAMPLING_KEYS,
    SPEC_KEYS,
    StopFlag,
    add_engine_flags,
    add_flags,
    add_meter_flags,
    add_sampling_flags,
    add_spec_flags,
    overrides,
)

SERVE_KEYS = ("out", "served_model")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from ..config import RunConfig

    p = sub.add_parser(
        "serve",
        help="serve the model on loopback (OpenAI chat completions), metering every request",
        description="An OpenAI-compatible /v1/chat/completions endpoint on 127.0.0.1: point "
        "any agent at it (OPENAI_BASE_URL) and every request is recorded as a step: tokens, "
        "KV reuse, prefill, decode, the agent's own time between requests, and energy.",
    )
    p.add_argument("--config", type=Path, help="YAML file of run settings (CLI flags win)")
    p.add_argument("--port", type=int, default=8080, help="TCP port on 127.0.0.1 (8080; 0: any)")
    p.add_argument("--served-model", metavar="NAME",
                   help="the model id /v1/models lists (default: the model's name)")
    p.add_argument("--max-tokens", type=int, default=1024, metavar="N",
                   help="completion budget of a request that sends none (1024)")
    add_flags(p, RunConfig, ("out",))
    add_engine_flags(p)
    add_sampling_flags(p)
    add_meter_flags(p)
    add_spec_flags(p)
    p.set_defaults(func=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..console import ConsolePrinter
    from ..run import execute_serve

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port}: a TCP port is 0-65535 (0: any free port)")
    if args.max_tokens < 1:
        raise UserError(f"--max-tokens {args.max_tokens}: must be at least 1")
    _check_port_free(args.port)  # before the model loads and the run directory is made
    given = overrides(args, *ENGINE_KEYS, *SERVE_KEYS, *METER_KEYS, *SPEC_KEYS,
                      *SAMPLING_KEYS)
    config = load_config(args.config, given)
    stop = StopFlag()
    stop.install()

    def ready(url: str, run_dir: Path) -> None:
        print(f"serving {url} (OPENAI_BASE_URL={url}); recording to {run_dir}; "
              "Ctrl-C stops", file=sys.stderr, flush=True)

    try:
        result = execute_serve(config, port=args.port, stop_requested=stop, on_ready=ready,
                               max_tokens=args.max_tokens, sinks=[ConsolePrinter()])
    except OSError as exc:
        raise _port_error(args.port, exc) from exc
    print(f"stopped: {result.steps} requests recorded in {result.run_dir}", file=sys.stderr)
    return 0


def _check_port_free(port: int) -> None:
    import socket

    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise _port_error(port, exc) from exc


def _port_error(port: int, exc: OSError) -> UserError:
    return UserError(f"--port {port}: cannot listen on 127.0.0.1: {exc.strerror or exc}; "
                     "choose another port (0: any free one)")
