"""The `edgeagent` command: the argparse root, one subcommand group per module of this package,
and the one place where a user error becomes one line and exit code 2."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from .. import __version__
from ..errors import UserError
from . import (
    accuracy,
    agents,
    doctor,
    index,
    models,
    replay,
    report,
    run,
    sensors,
    serve,
    sweep,
    tasks,
    view,
)

# in `edgeagent --help` order
COMMAND_GROUPS = (run, serve, report, models, agents, tasks, sensors, doctor, replay, accuracy,
                  sweep, index, view)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edgeagent",
        description="Measure the time and energy of whole coding-agent trajectories on a "
        "local GGUF model.",
    )
    parser.add_argument("--version", action="version", version=f"edgeagent {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND")  # argparse lists each with its help
    sub.required = True
    for group in COMMAND_GROUPS:
        group.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        # libgomp reads its wait policy once, when llama_cpp first loads, whichever command
        # loads it: the engine's thread policy is set before anything can
        from ..engine import apply_thread_policy

        try:
            apply_thread_policy()
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        return args.func(args)
    except UserError as exc:
        print(f"edgeagent: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`edgeagent tasks list | head`): stop quietly, as cat does;
        # stdout goes to /dev/null so the interpreter's final flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
