"""`edgeagent sweep`: llama-bench-style lists of engine settings over a fixed agent workload,
each configuration x repeat a run directory, one table row per configuration (docs/sweep.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import UserError
from .common import METER_KEYS, StopFlag, add_flags, add_meter_flags

# settings every run of a sweep shares (config keys; the flags are their dashed forms)
BASE_KEYS = ("model", "n_ctx", "seed", "max_new_tokens", "max_steps", "grammar", *METER_KEYS)
# what --resume takes from sweep.json, so not from the command line
_PLAN_FLAGS = ("dataset", "suite", "tasks", "conversations", "inject_tool_delay", "mlperf",
               "repeats", *BASE_KEYS)
# what `replay --mlperf` fixes itself (its preset would refuse another value)
_MLPERF_FIXED = ("seed", "max_new_tokens", "n_ctx")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from ..config import KV_CACHE_TYPES, RunConfig
    from ..replay import MLPERF
    from ..sweep import FORMATS

    p = sub.add_parser(
        "sweep", help="engine settings swept over a fixed workload: one row per configuration",
        description="Run a fixed workload (a replay dataset, by default the bundled one; or a "
        "live suite) once per configuration and repeat, with llama-bench-style comma lists "
        "(--threads 1,2 --flash-attn off,on --kv-type f16,q8_0). Each run is a normal run "
        "directory under SWEEP/runs/; SWEEP/sweep.json indexes them, and the table (mean ± sd "
        "over repeats) is written as sweep.md, sweep.csv, sweep-table.json and sweep.html.")
    p.add_argument("dataset", nargs="?", type=Path,
                   help="MLPerf agentic JSONL to replay (default: tasks/replay/smoke.jsonl)")
    p.add_argument("--suite", help="run this task suite live instead of replaying a dataset")
    p.add_argument("--task", dest="tasks", action="append", metavar="ID",
                   help="with --suite: only this task (repeatable)")
    p.add_argument("--conversations", metavar="N|IDS",
                   help="replay: the first N conversations, or comma-separated ids")
    p.add_argument("--inject-tool-delay", action="store_true", default=None,
                   help="replay: sleep each tool row's recorded delay")
    p.add_argument("--mlperf", action="store_true", default=None,
                   help="replay: MLPerf Edge Agentic's run settings in every run (as `edgeagent "
                   "replay --mlperf`: temperature 0, seed 42, 1024 new tokens, a context "
                   "that holds the longest turn)")
    p.add_argument("--repeats", type=int, help="runs per configuration (default 1)")
    p.add_argument("--out", type=Path, default=Path("runs"),
                   help="directory that receives the sweep directory (default runs/)")
    p.add_argument("--resume", type=Path, metavar="SWEEP_DIR",
                   help="continue a sweep: finished runs are kept, an interrupted replay run "
                   "is redone, an interrupted live run is resumed")
    p.add_argument("--dry-run", action="store_true",
                   help="print the configurations and the first run's command; run nothing")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="the table printed at the end (the files are written in every format)")
    g = p.add_argument_group("swept settings (comma lists; the last listed varies fastest)")
    g.add_argument("--threads", metavar="N,..", help="llama.cpp threads")
    g.add_argument("--threads-batch", metavar="N,..", help="prompt-processing threads")
    g.add_argument("--n-batch", metavar="N,..", help="logical batch")
    g.add_argument("--n-ubatch", metavar="N,..", help="physical batch")
    g.add_argument("--flash-attn", metavar="auto,on,off",
                   help="flash attention: auto (off on the CPU, llama.cpp's choice on a GPU), "
                   "on, off (1/0)")
    g.add_argument("--kv-type", metavar="f16,q8_0",
                   help=f"K and V cache type together ({', '.join(KV_CACHE_TYPES)})")
    g.add_argument("--type-k", metavar="TYPE,..", help="K cache type")
    g.add_argument("--type-v", metavar="TYPE,..", help="V cache type (quantized: needs fa 1)")
    g.add_argument("--gpu-layers", metavar="N,..", help="layers offloaded to a GPU")
    g.add_argument("--mlock", metavar="0,1", help="lock the model in RAM")
    g.add_argument("--mmap", metavar="0,1", help="map the model file")
    f = p.add_argument_group("settings every run shares")
    add_flags(f, RunConfig, ("model", "n_ctx", "seed", "max_new_tokens", "max_steps",
                             "grammar"),
              defaults={"max_new_tokens": f"{MLPERF.max_new_tokens} for a replay, MLPerf's; "
                        f"{RunConfig.max_new_tokens} for a suite"})
    add_meter_flags(p)
    p.set_defaults(func=_cmd_sweep)


def _base(args: argparse.Namespace) -> dict[str, Any]:
    base = {k: getattr(args, k) for k in BASE_KEYS if getattr(args, k) is not None}
    if args.suite is None:
        base.pop("max_steps", None)
    return base


def _plan(args: argparse.Namespace):
    from ..sweep import SETTINGS, new_plan, parse_lists, replay_workload, suite_workload

    if args.suite and (args.dataset or args.conversations):
        raise UserError("give a dataset (replay) or --suite (live), not both")
    if args.suite and args.mlperf:
        raise UserError("--mlperf is MLPerf's replay settings: drop it or --suite")
    fixed = [f"--{k.replace('_', '-')}" for k in _MLPERF_FIXED if getattr(args, k) is not None]
    if args.mlperf and fixed:
        raise UserError(f"--mlperf sets {' and '.join(fixed)} itself (MLPerf's run settings); "
                        f"drop {' '.join(fixed)}")
    if args.suite:
        workload = suite_workload(args.suite, args.tasks)
    else:
        workload = replay_workload(args.dataset, args.conversations,
                                   bool(args.inject_tool_delay), bool(args.mlperf))
    lists = parse_lists({k: getattr(args, k) for k in SETTINGS})
    return new_plan(workload, lists, _base(args), 1 if args.repeats is None else args.repeats)


def _check_model(model: str | None) -> None:
    """A model file that is missing, cut short or garbled fails the sweep before its
    directory is made: each run would only be skipped with the same error. A known name is
    left to the runs (resolving it may download it)."""
    from ..models import KNOWN_MODELS, resolve_model

    if model and model not in KNOWN_MODELS:
        resolve_model(model, progress=False)


def _print_dry_run(plan: Any) -> int:
    from ..sweep import child_command

    print(f"{len(plan.configurations)} configurations x {plan.repeats} repeats "
          f"({plan.workload.kind}, {plan.workload.units} "
          f"{'turns' if plan.workload.kind == 'replay' else 'tasks'} a run):")
    for c in plan.configurations:
        print(f"  {c.id}  {c.label()}" + (f"  skipped: {c.skipped}" if c.skipped else ""))
    first = next((c for c in plan.configurations if not c.skipped), None)
    if first is not None:
        cmd = child_command(plan.workload, plan.base, first.as_dict(), Path("SWEEP/runs"))
        print("first run: " + " ".join(["edgeagent", *cmd[3:]]))
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from ..rundir import make_run_dir
    from ..sweep import (
        load_index,
        plan_of_index,
        render_table,
        run_sweep,
        start_index,
        sweep_running,
        sweep_table,
        write_outputs,
    )

    if args.resume is not None:
        given = [f"--{k.replace('_', '-')}" for k in (*_PLAN_FLAGS, "threads", "threads_batch",
                 "n_batch", "n_ubatch", "flash_attn", "kv_type", "type_k", "type_v",
                 "gpu_layers", "mlock", "mmap") if getattr(args, k, None) is not None]
        if given:
            raise UserError(f"--resume runs the plan in {args.resume}/sweep.json; drop "
                            f"{' '.join(given)} (or start a new sweep)")
        index = load_index(args.resume)
        plan = plan_of_index(index)
    else:
        plan = _plan(args)
        if args.dry_run:
            return _print_dry_run(plan)
        _check_model(plan.base.get("model"))
        index = start_index(make_run_dir(args.out, "sweep"), plan)
    print(f"sweep {index.path}: {len(plan.configurations)} configurations x {plan.repeats} "
          "repeats", file=sys.stderr)
    stop = StopFlag()
    stop.install()
    try:
        with sweep_running(index):
            index.status = run_sweep(index, plan.configurations, plan.workload, plan.base,
                                     plan.repeats, stop=stop)
    except KeyboardInterrupt:  # a second Ctrl-C: the run in progress was cut short
        print(f"aborted; continue with: edgeagent sweep --resume {index.path}",
              file=sys.stderr)
        return stop.exit_code
    table = sweep_table(index)
    written = write_outputs(table, index.path)
    print(render_table(table, args.format))
    print(f"wrote {', '.join(p.name for p in written)} in {index.path}", file=sys.stderr)
    if index.status == "interrupted":
        print(f"interrupted; continue with: edgeagent sweep --resume {index.path}",
              file=sys.stderr)
        return stop.exit_code
    return 0 if index.status == "complete" else 1
