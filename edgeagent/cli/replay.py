"""`edgeagent replay` (teacher-forced, MLPerf Edge Agentic JSONL) and `edgeagent export`."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent import LimitsConfig
from ..errors import UserError
from ..replay import MLPERF
from .common import (
    ENDPOINT_KEYS,
    ENGINE_KEYS,
    METER_KEYS,
    StopFlag,
    add_endpoint_flags,
    add_engine_flags,
    add_flags,
    add_meter_flags,
    overrides,
)
from .repeats import RepeatStop, add_repeats_flag, check_repeats

if TYPE_CHECKING:  # the command's modules load when it runs, not when the CLI starts
    from ..config import RunConfig
    from ..replay import Conversation
    from ..results import RepeatRun


def add_parsers(sub: argparse._SubParsersAction) -> None:
    _add_replay(sub)
    _add_export(sub)


def _add_replay(sub: argparse._SubParsersAction) -> None:
    from ..config import RunConfig

    p = sub.add_parser(
        "replay",
        help="teacher-forced replay of recorded trajectories (MLPerf Edge Agentic format)",
        description="Replay recorded conversations turn by turn: the model generates each "
        "assistant turn from the recorded history, then the recorded turn and tool result "
        "follow. With no dataset: the bundled smoke trajectories (tasks/replay/smoke.jsonl).",
    )
    p.add_argument("dataset", nargs="?", type=Path,
                   help="MLPerf agentic JSONL file (default: the bundled smoke workload)")
    p.add_argument("--from-run", type=Path, metavar="RUN_DIR",
                   help="replay the trajectories of a run directory instead of a dataset")
    p.add_argument("--reexecute-tools", action="store_true",
                   help="with --from-run: run the recorded tool calls in a fresh task sandbox "
                   "instead of replaying their outputs (tool wait measured on this device)")
    p.add_argument("--conversations", metavar="N|IDS",
                   help="the first N conversations, or comma-separated conversation ids")
    p.add_argument("--inject-tool-delay", action="store_true",
                   help="sleep each tool row's recorded delay_seconds (recorded as tool wait)")
    add_flags(p, LimitsConfig, ("max_new_tokens",),
              defaults={"max_new_tokens": f"{MLPERF.max_new_tokens}, MLPerf's"})
    p.add_argument("--mlperf", action="store_true",
                   help="MLPerf Edge Agentic's run settings: temperature 0, seed 42, "
                   "max_new_tokens 1024, turn timeout 600 s, single stream, a context that "
                   "holds the longest turn (checked before the model loads); a flag with "
                   "another value is an error; recorded as replay.preset")
    add_flags(p, RunConfig, ("out",))
    p.add_argument("--resume", type=Path, metavar="RUN_DIR",
                   help="continue an interrupted replay with its own dataset and settings: "
                   "finished conversations are kept, an unfinished one runs again from its "
                   "first turn (only --threads, --power-root, --sample-interval-s may be given)")
    p.add_argument("--isl", action="store_true",
                   help="only count each assistant turn's input tokens (ISL) with the model's "
                   "tokenizer and print them with their distribution; no generation")
    p.add_argument("-o", "--output", type=Path, metavar="FILE",
                   help="with --isl: also write the turns and the distribution here as JSON")
    add_engine_flags(p, n_ctx_auto=True, n_ctx_default="auto: the dataset's largest ISL + "
                     "--max-new-tokens, capped by the model's training context")
    add_meter_flags(p)
    p.add_argument("--json", action="store_true", help="print JSON events instead of lines")
    add_repeats_flag(p)
    add_endpoint_flags(p)  # replay a workload against a server, metered the same way
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    from ..config import load_config
    from ..models import file_sha256
    from ..replay import apply_preset, load_dataset, run_conversations, select_conversations
    from ..run import ReplaySource, default_dataset

    check_repeats(args)
    if args.resume is not None:
        return _resume_replay(args)
    if args.from_run and args.dataset:
        raise UserError("give either a dataset file or --from-run RUN_DIR, not both")
    if args.reexecute_tools and not args.from_run:
        raise UserError("--reexecute-tools needs --from-run RUN_DIR")
    if args.from_run:
        conversations = run_conversations(args.from_run)
        label, sha = str(args.from_run), None
    else:
        path = args.dataset or default_dataset()
        conversations = load_dataset(path)
        label, sha = str(path), file_sha256(path)
    chosen = select_conversations(conversations, args.conversations)
    source = ReplaySource(label, chosen, sha, args.from_run)
    n_ctx_auto = args.n_ctx in (None, "auto")
    if n_ctx_auto:
        args.n_ctx = None  # the config's default until the dataset has been measured
    given = overrides(args, "out", "max_new_tokens", *ENGINE_KEYS, *METER_KEYS, *ENDPOINT_KEYS)
    if args.mlperf:
        given = apply_preset(given)
    elif given["max_new_tokens"] is None:
        given["max_new_tokens"] = MLPERF.max_new_tokens  # MLPerf's budget per turn
    given["suite"] = f"replay:{label}"
    config = load_config(None, given)
    if args.isl:
        return _print_isl(config, chosen, args.output, args.json)
    if args.output:
        raise UserError("-o/--output goes with --isl (a replay writes its run directory "
                        "under --out)")
    preset = MLPERF if args.mlperf else None
    if args.repeats > 1:
        return _replay_repeated(args, config, source, n_ctx_auto=n_ctx_auto, preset=preset)
    return _execute(args, config, source, n_ctx_auto=n_ctx_auto, preset=preset)


def _replay_repeated(args: argparse.Namespace, config: RunConfig, source: Any, *,
                     n_ctx_auto: bool, preset: Any) -> int:
    """`--repeats N`: N replays of `config`, each its own run directory in one group."""
    from .repeats import group_label, run_repeats

    def once(group: str, stop: RepeatStop) -> RepeatRun:
        return _replay_once(args, dataclasses.replace(config, out=group), source, stop,
                            n_ctx_auto=n_ctx_auto, preset=preset)

    return run_repeats(args.repeats, config.out, group_label(config.suite), "replay",
                       args.json, once)


def _resume_replay(args: argparse.Namespace) -> int:
    from ..run import resume_replay

    fixed = {"dataset": args.dataset, "--from-run": args.from_run,
             "--conversations": args.conversations, "--mlperf": args.mlperf or None,
             "--isl": args.isl or None, "--reexecute-tools": args.reexecute_tools or None,
             "--inject-tool-delay": args.inject_tool_delay or None, "-o": args.output}
    given = next((name for name, value in fixed.items() if value is not None), None)
    if given is not None:
        raise UserError(f"--resume continues {args.resume} with its own dataset and settings; "
                        f"drop {given}")
    if args.n_ctx == "auto":
        args.n_ctx = None
    config, source = resume_replay(args.resume, overrides(
        args, "out", "max_new_tokens", *ENGINE_KEYS, *METER_KEYS, *ENDPOINT_KEYS))
    return _execute(args, config, source, resume_dir=args.resume)


def _execute(args: argparse.Namespace, config: RunConfig, source: Any, *,
             n_ctx_auto: bool = False, preset: Any = None, resume_dir: Path | None = None
             ) -> int:
    """Replay with progress and Ctrl-C, print the summary; the exit code as `check` gives."""
    stop = StopFlag()
    stop.install()
    return _replay_once(args, config, source, stop, n_ctx_auto=n_ctx_auto, preset=preset,
                        resume_dir=resume_dir).exit_code


def _replay_once(args: argparse.Namespace, config: RunConfig, source: Any, stop: StopFlag, *,
                 n_ctx_auto: bool = False, preset: Any = None, resume_dir: Path | None = None
                 ) -> RepeatRun:
    """One replay: its events and summary printed; its run directory, status and exit code
    (1 INVALID, else 0, as `edgeagent check` exits; 128 + the signal when stopped)."""
    from ..console import ConsolePrinter, JsonPrinter
    from ..replay import summary_text
    from ..results import RepeatRun
    from ..run import execute_replay
    from ..rundir import SUMMARY_FILE

    printer = JsonPrinter() if args.json else ConsolePrinter()
    try:
        result = execute_replay(config, source, inject_tool_delay=args.inject_tool_delay,
                                reexecute_tools=args.reexecute_tools, sinks=[printer],
                                stop_requested=stop, progress=not args.json,
                                n_ctx_auto=n_ctx_auto, preset=preset, resume_dir=resume_dir)
    except KeyboardInterrupt:
        print("aborted; the turns completed so far are kept in the run directory",
              file=sys.stderr)
        return RepeatRun(None, "aborted", stop.exit_code)
    if not args.json:
        print(summary_text(result.summary))
        print(f"summary: {result.run_dir / SUMMARY_FILE}")
    if result.status == "interrupted":
        # the last line says so: the summary above reads like a finished replay's
        print(f"interrupted; the turns completed so far are kept in {result.run_dir} "
              f"(continue with: edgeagent replay --resume {result.run_dir})", file=sys.stderr)
        return RepeatRun(str(result.run_dir), result.status, stop.exit_code)
    code = 1 if result.summary["result"] == "INVALID" else 0  # as `edgeagent check` exits
    return RepeatRun(str(result.run_dir), result.status, code)


def _print_isl(config: RunConfig, conversations: Sequence[Conversation], output: Path | None,
               as_json: bool) -> int:
    """`replay --isl`: every turn's ISL with the model's tokenizer alone, and the
    distribution; text, or JSON with --json, and the JSON written to `output`."""
    from ..engine import Vocabulary
    from ..replay import isl_report, isl_text, turn_lengths, uses_native
    from ..run import tokenizer_path

    path = tokenizer_path(config, progress=not as_json)
    if path is None:
        raise UserError("--isl through --endpoint needs --tokenizer GGUF (the model whose "
                        "tokenizer counts the prompts)")
    vocab = Vocabulary(path)
    try:
        native = uses_native(config.tool_format, vocab)
        report = isl_report(turn_lengths(conversations, vocab.prompt_tokens, native=native),
                            path.name, "native" if native else "text")
    finally:
        vocab.close()
    text = json.dumps(report, indent=2) + "\n"
    if output is not None:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror or exc} (choose another "
                            "-o)") from exc
    print(text if as_json else isl_text(report), end="" if as_json else "\n")
    return 0


def _add_export(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write a run's trajectories as an MLPerf agentic JSONL dataset",
        description="Export every task attempt of a run directory (or, with --oracle, the "
        "oracle solutions of a suite) as MLPerf Edge Agentic JSONL, a fixed workload for "
        "`edgeagent replay`.")
    p.add_argument("run_dir", nargs="?", type=Path, help="a run directory made by edgeagent run")
    p.add_argument("--format", default="mlperf-agentic", choices=["mlperf-agentic"],
                   help="output format (mlperf-agentic)")
    p.add_argument("--oracle", metavar="SUITE",
                   help="export the oracle trajectories of a suite instead of a run")
    p.add_argument("-o", "--output", type=Path,
                   help="write here (default: stdout; for a run: RUN_DIR/mlperf-agentic.jsonl)")
    p.set_defaults(func=_cmd_export)


def _cmd_export(args: argparse.Namespace) -> int:
    from ..replay import dump_rows, oracle_conversation, run_conversations
    from ..suite import load_suite

    if bool(args.run_dir) == bool(args.oracle):
        raise UserError("give a run directory or --oracle SUITE (one of them)")
    if args.oracle:
        conversations = tuple(oracle_conversation(t) for t in load_suite(args.oracle).tasks)
    else:
        conversations = run_conversations(args.run_dir)
    text = dump_rows(conversations)
    output = args.output or (args.run_dir / "mlperf-agentic.jsonl" if args.run_dir else None)
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"cannot write {output}: {exc.strerror or exc} (choose another -o)"
        ) from exc
    turns = sum(c.assistant_turns for c in conversations)
    print(f"wrote {output}: {len(conversations)} conversations, {turns} assistant turns",
          file=sys.stderr)
    return 0
