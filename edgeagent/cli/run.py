"""`edgeagent run`: the agent live over a task suite, on the dashboard or as console lines."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import StoreError, UserError
from .common import (
    ENDPOINT_KEYS,
    ENGINE_KEYS,
    METER_KEYS,
    SAMPLING_KEYS,
    SPEC_KEYS,
    StopFlag,
    add_endpoint_flags,
    add_engine_flags,
    add_flags,
    add_meter_flags,
    add_sampling_flags,
    add_spec_flags,
    overrides,
)
from .repeats import RepeatStop, add_repeats_flag, check_repeats

if TYPE_CHECKING:
    from ..config import RunConfig
    from ..results import RepeatRun

RUN_KEYS = ("suite", "tasks", "out", "max_steps", "max_context_tokens", "max_new_tokens",
            "wall_s", "command_timeout_s", "baseline_s", "retrieval", "stuck_after",
            "draft_first", "repair", "repair_strategy", "after_draft_steps", "agent",
            "agent_cmd")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from ..config import RunConfig

    p = sub.add_parser(
        "run",
        help="run the agent live over a task suite and record every step",
        description="Run the coding agent over a suite with a local GGUF model; with no "
        "arguments: the smoke suite and the default model (pulled on first use).",
    )
    p.add_argument("--config", type=Path, help="YAML file of run settings (CLI flags win)")
    add_flags(p, RunConfig, ("suite",))
    p.add_argument("--task", dest="tasks", action="append", metavar="ID",
                   help="run only this task (repeatable)")
    add_flags(p, RunConfig, ("out", "max_steps", "max_context_tokens", "max_new_tokens",
                             "wall_s", "command_timeout_s", "stuck_after", "draft_first",
                             "repair", "repair_strategy", "after_draft_steps", "agent",
                             "agent_cmd"))
    add_engine_flags(p)
    add_sampling_flags(p)
    add_meter_flags(p)
    add_flags(p, RunConfig, ("baseline_s", "retrieval"))
    p.add_argument("--json", action="store_true", help="print JSON events instead of lines")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR",
                   help="continue an interrupted run: finished tasks are kept, unfinished "
                        "ones restart as a new attempt")
    add_spec_flags(p)
    p.add_argument("--headless", action="store_true",
                   help="print one line per step instead of opening the dashboard (the "
                   "default when stdout is not a terminal)")
    add_repeats_flag(p)
    add_endpoint_flags(p)
    p.set_defaults(func=run_command)


def run_command(args: argparse.Namespace) -> int:
    from ..config import load_config

    check_repeats(args)
    given = overrides(args, *ENGINE_KEYS, *RUN_KEYS, *METER_KEYS, *SPEC_KEYS, *ENDPOINT_KEYS,
                      *SAMPLING_KEYS)
    resume_dir = args.resume
    if resume_dir is not None:
        from ..rundir import resume_config

        if args.config is not None:
            raise UserError("--resume uses the run's own config.yaml; drop --config")
        config = resume_config(resume_dir, given)
    else:
        config = load_config(args.config, given)
    if args.repeats > 1:  # always headless: one dashboard per repetition would hide the rest
        return _run_repeated(args, config)
    from ..tui import run_in_tui, use_tui

    if use_tui(headless=args.headless, json=args.json):
        return run_in_tui(config, resume_dir=resume_dir)
    stop = StopFlag()
    stop.install()
    return _run_once(args, config, stop, resume_dir).exit_code


def _run_repeated(args: argparse.Namespace, config: RunConfig) -> int:
    """`--repeats N`: N runs of `config`, each its own run directory in one group."""
    from .repeats import group_label, run_repeats

    def once(group: str, stop: RepeatStop) -> RepeatRun:
        return _run_once(args, dataclasses.replace(config, out=group), stop)

    return run_repeats(args.repeats, config.out, group_label(config.suite), "run", args.json,
                       once)


def _run_once(args: argparse.Namespace, config: RunConfig, stop: StopFlag,
              resume_dir: Path | None = None) -> RepeatRun:
    """One headless run: its events printed, the verdict at its end; its run directory,
    status and exit code (the verdict's, as `edgeagent check` gives it, docs/run.md "Exit
    codes"; 128 + the signal when stopped)."""
    from ..console import ConsolePrinter, JsonPrinter, VerdictPrinter, resume_hint
    from ..results import RepeatRun
    from ..run import execute_run

    printer = JsonPrinter() if args.json else ConsolePrinter()
    # the MLPerf-style check, printed before the summary lines (on stderr with --json)
    verdict = VerdictPrinter(sys.stderr if args.json else None)
    try:
        result = execute_run(config, sinks=[verdict, printer], stop_requested=stop,
                             progress=not args.json, resume_dir=resume_dir)
    except KeyboardInterrupt:
        print("aborted; the steps completed so far are kept in the run directory"
              + resume_hint(verdict.run_dir), file=sys.stderr)
        return RepeatRun(verdict.run_dir, "aborted", stop.exit_code)
    except BrokenPipeError:
        print("stopped: the output's reader went away; the run is marked failed with that "
              "reason" + resume_hint(verdict.run_dir), file=sys.stderr)
        raise  # cli.main ends it quietly with SIGPIPE's exit code
    except StoreError as exc:  # the run directory could not be written (a full disk)
        run_dir = verdict.run_dir or (str(resume_dir) if resume_dir is not None else None)
        if run_dir is None:
            raise  # no run directory yet: nothing to resume
        raise StoreError(f"{exc}{resume_hint(run_dir)}") from exc
    if result.status == "interrupted":
        print(f"interrupted{resume_hint(str(result.run_dir))}", file=sys.stderr)
        return RepeatRun(str(result.run_dir), result.status, stop.exit_code)
    return RepeatRun(str(result.run_dir), result.status, verdict.exit_code)
