"""`edgeagent replay` and `edgeagent export`: registered on the main parser by one call."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UserError


def add_commands(sub: argparse._SubParsersAction) -> None:
    _add_replay(sub)
    _add_export(sub)


def _add_replay(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("--model", help="known model name or path to a .gguf file")
    p.add_argument("--conversations", metavar="N|IDS",
                   help="the first N conversations, or comma-separated conversation ids")
    p.add_argument("--inject-tool-delay", action="store_true",
                   help="sleep each tool row's recorded delay_seconds (recorded as tool wait)")
    p.add_argument("--max-new-tokens", type=int, default=1024,
                   help="generation budget per turn (default 1024)")
    p.add_argument("--out", help="directory that receives the run directory (default runs/)")
    p.add_argument("--n-ctx", type=int, help="llama.cpp context window (default 8192)")
    p.add_argument("--threads", type=int, help="CPU threads for llama.cpp")
    p.add_argument("--gpu-layers", type=int, help="layers to offload to a GPU")
    p.add_argument("--seed", type=int, help="sampling seed (recorded)")
    p.add_argument("--no-grammar", dest="grammar", action="store_false", default=None,
                   help="do not constrain generated tool calls with a grammar")
    p.add_argument("--power-root", help="read power sensors below this directory (default /)")
    p.add_argument("--power-estimate-tdp", type=float, metavar="WATTS",
                   help="allow a labelled CPU-utilisation x TDP estimate when no sensor exists")
    p.add_argument("--sample-interval-s", type=float, help="meter sampling interval (0.05)")
    p.add_argument("--json", action="store_true", help="print JSON events instead of lines")
    from ..cli import _add_endpoint_flags

    _add_endpoint_flags(p)  # replay a workload against a server, metered the same way
    p.set_defaults(func=_cmd_replay)


def _cmd_replay(args: argparse.Namespace) -> int:
    from ..cli import _StopFlag
    from ..config import load_config
    from ..console import ConsolePrinter, JsonPrinter
    from .dataset import load_dataset, select_conversations
    from .export import run_conversations
    from .run import ReplaySource, default_dataset, execute_replay, file_sha256
    from .summary import summary_text

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
    overrides = {k: getattr(args, k) for k in (
        "model", "out", "max_new_tokens", "n_ctx", "threads", "gpu_layers", "seed", "grammar",
        "power_root", "power_estimate_tdp", "sample_interval_s", "endpoint", "api_key_env",
        "served_model", "endpoint_constraint", "turn_timeout_s", "tokenizer")}
    overrides["suite"] = f"replay:{label}"
    config = load_config(None, overrides)
    printer = JsonPrinter() if args.json else ConsolePrinter()
    stop = _StopFlag()
    stop.install()
    try:
        result = execute_replay(config, source, inject_tool_delay=args.inject_tool_delay,
                                reexecute_tools=args.reexecute_tools, sinks=[printer],
                                stop_requested=stop, progress=not args.json)
    except KeyboardInterrupt:
        print("aborted; the turns completed so far are kept in the run directory",
              file=sys.stderr)
        return 130
    if not args.json:
        print(summary_text(result.summary))
        print(f"summary: {result.run_dir / 'result_summary.json'}")
    return 130 if result.status == "interrupted" else 0


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
    from ..suite import load_suite
    from .dataset import dump_rows
    from .export import oracle_conversation, run_conversations

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
