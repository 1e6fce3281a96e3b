"""`edgeagent accuracy`: MLPerf Edge Agentic's accuracy phase, BFCL v4 single-turn sampled,
prompted and scored as MLPerf does it, in process or through `--endpoint`, metered like a
run (docs/accuracy.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..accuracy import MAX_NEW_TOKENS, SEED  # MLPerf's edge settings, the defaults here
from ..agent import LimitsConfig
from ..errors import UserError
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

# engine flags that do not apply: the records always go natively and unconstrained
NOT_HERE = {"tool_format": "--tool-format", "grammar": "--no-grammar"}


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from ..config import RunConfig

    p = sub.add_parser(
        "accuracy",
        help="MLPerf Edge Agentic's accuracy phase: BFCL v4 single-turn, scored as MLPerf does",
        description="Run BFCL v4 single-turn as MLPerf's edge config samples it (non_live / "
        "live / hallucination at 62/10/10%, subsets of 25 or fewer whole: 995 records), each "
        "through the model's chat template with its functions as tools, greedy, seed 42, "
        "1024 new tokens; scored by bfcl-eval's AST checker (the [accuracy] extra) and "
        "aggregated as MLPerf does, into accuracy_results.json beside the usual run.db.",
    )
    p.add_argument("--subset", action="append", metavar="NAME",
                   help="only this BFCL subset (repeatable, or comma-separated), sampled as "
                   "in the full run; live_relevance, outside MLPerf's categories, too")
    p.add_argument("--limit", type=int, metavar="N",
                   help="the first N samples, taking each subset in turn (a quick run)")
    p.add_argument("--reference", type=float, metavar="X",
                   help="a reference overall_accuracy in percent (MLPerf's Qwen3.6-27B on "
                   "Thor: 86.23): show MLPerf's gate, overall >= 0.97 x X (exit 1 on FAIL)")
    add_flags(p, RunConfig, ("out",))
    add_flags(p, LimitsConfig, ("max_new_tokens",),
              defaults={"max_new_tokens": f"{MAX_NEW_TOKENS}, MLPerf's"})
    p.add_argument("--resume", type=Path, metavar="RUN_DIR",
                   help="continue an interrupted accuracy run: finished samples are kept")
    p.add_argument("--rescore", type=Path, metavar="RUN_DIR",
                   help="score a run's recorded outputs again (no model) and rewrite its "
                   "accuracy_results.json")
    add_engine_flags(p, n_ctx_auto=True, n_ctx_default="auto: the longest sampled prompt + "
                     "--max-new-tokens, capped by the training context")
    for action in p._actions:  # shared engine flags that do not apply here: refused, unlisted
        if action.dest in NOT_HERE:
            action.help = argparse.SUPPRESS
    add_meter_flags(p)
    p.add_argument("--json", action="store_true",
                   help="print JSON events, then the results, instead of the progress bar")
    add_endpoint_flags(p)
    p.set_defaults(func=accuracy_command)


def _subsets(values: list[str] | None) -> tuple[str, ...] | None:
    if not values:
        return None
    return tuple(dict.fromkeys(n.strip() for v in values for n in v.split(",") if n.strip()))


def _check_flags(args: argparse.Namespace) -> None:
    if args.reference is not None and not 0 < args.reference <= 100:
        raise UserError(f"--reference {args.reference}: give the reference overall_accuracy "
                        "in percent, above 0 and at most 100 (MLPerf's: 86.23)")
    for key, flag in NOT_HERE.items():
        if getattr(args, key, None) is not None:
            raise UserError(f"{flag} does not apply to accuracy: every record goes with its "
                            "functions as native tools, unconstrained, as MLPerf sends it")
    if (args.resume or args.rescore) and (args.subset or args.limit is not None):
        raise UserError("--resume and --rescore keep the run's own samples; drop --subset "
                        "and --limit")
    if args.resume and args.rescore:
        raise UserError("give --resume RUN_DIR or --rescore RUN_DIR, not both")


def _config(args: argparse.Namespace) -> tuple[Any, bool]:
    """The run's config, and whether its context is sized from the records (`auto`)."""
    from ..config import load_config

    given = overrides(args, "out", "max_new_tokens", *ENGINE_KEYS, *METER_KEYS,
                      *ENDPOINT_KEYS)
    for key in NOT_HERE:
        given.pop(key, None)
    n_ctx_auto = args.n_ctx in (None, "auto")
    if n_ctx_auto:
        given["n_ctx"] = None
    if args.resume is not None:
        from ..rundir import resume_config

        return resume_config(args.resume, given), False
    given["seed"] = args.seed if args.seed is not None else SEED
    if given["max_new_tokens"] is None:
        given["max_new_tokens"] = MAX_NEW_TOKENS
    if n_ctx_auto:  # the default n_ctx for the check that max_new_tokens fits; sized later
        given["n_ctx"] = max(8192, given["max_new_tokens"] + 512)
    return load_config(None, given), n_ctx_auto


def accuracy_command(args: argparse.Namespace) -> int:
    from ..accuracy import Selection

    _check_flags(args)
    if args.rescore is not None:
        return _rescore(args)
    selection = Selection(_subsets(args.subset), args.limit)
    selection.check()  # names and numbers before anything loads
    config, n_ctx_auto = _config(args)
    return _execute(args, config, selection, n_ctx_auto)


def _execute(args: argparse.Namespace, config: Any, selection: Any, n_ctx_auto: bool) -> int:
    from ..accuracy import ProgressBar, execute_accuracy
    from ..console import JsonPrinter

    stop = StopFlag()
    stop.install()
    bar = None if args.json else ProgressBar()
    sinks = [JsonPrinter()] if args.json else []
    try:
        result = execute_accuracy(config, selection, reference=args.reference, sinks=sinks,
                                  stop_requested=stop, progress=not args.json,
                                  on_sample=bar, n_ctx_auto=n_ctx_auto,
                                  resume_dir=args.resume)
    except KeyboardInterrupt:
        print("aborted; the samples completed so far are kept in the run directory",
              file=sys.stderr)
        return 130
    finally:
        if bar is not None:
            bar.close()
    hint = f"; continue with: edgeagent accuracy --resume {result.run_dir}"
    _print_results(args, result.run_dir, result.document)
    if result.status == "interrupted":
        print(f"interrupted{hint}", file=sys.stderr)
        return stop.exit_code
    if result.status != "complete":
        print(f"the run {result.status}{hint}", file=sys.stderr)
        return 1
    return _gate_code(result.document)


def _print_results(args: argparse.Namespace, run_dir: Path, document: dict[str, Any]) -> None:
    from ..accuracy import summary_text
    from ..rundir import ACCURACY_RESULTS_FILE

    if args.json:
        print(json.dumps({"event": "AccuracyResults", "run_dir": str(run_dir), **document}))
        return
    print(summary_text(document))
    print(f"results: {run_dir / ACCURACY_RESULTS_FILE}")


def _gate_code(document: dict[str, Any]) -> int:
    gate = document["edgeagent"].get("gate")
    return 1 if gate and not gate["passed"] else 0


def _rescore(args: argparse.Namespace) -> int:
    from ..accuracy import rescore_run

    result = rescore_run(args.rescore, reference=args.reference)
    _print_results(args, args.rescore, result.document)
    if not args.json:
        print(f"rescored: {len(result.changed)} verdict(s) differ from the recorded ones"
              + (f" ({', '.join(result.changed[:10])})" if result.changed else ""))
    return _gate_code(result.document)
