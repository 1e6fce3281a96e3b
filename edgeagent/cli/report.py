"""`edgeagent report`, `compare` and `check`: a run directory summarised, runs side by side,
and the MLPerf-style validity verdict."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

from ..errors import UserError
from ..sweep import is_sweep_dir


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from ..results import COMPARE_FORMATS, FORMATS

    p = sub.add_parser(
        "report", help="summary of a run directory (text, md, json, csv or html)",
        description="Summarise a run: per-task outcome, steps, wall time, tokens, the "
        "prefill/decode/tool split, task-level metrics and the validity verdict.")
    p.add_argument("run_dir", type=Path, help="a run directory made by `edgeagent run`")
    p.add_argument("--format", choices=FORMATS,
                   help="output format (default: from the -o file's suffix, else text)")
    p.add_argument("--bandwidth-gbs", type=float, metavar="GB/S",
                   help="measured memory bandwidth, for the decode roofline efficiency")
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    p.set_defaults(func=_cmd_report)

    c = sub.add_parser(
        "compare", help="runs side by side: headline metrics, ratios, per-task deltas",
        description="Compare runs: every headline metric with its ratio to the first run, "
        "per-task deltas, and warnings when runs are not comparable.")
    c.add_argument("run_dirs", type=Path, nargs="+",
                   help="run directories (first = baseline), or one sweep directory (its "
                   "table: a row per configuration)")
    c.add_argument("--by", choices=["device", "config"],
                   help="device: pool runs of one device into a column (never an "
                   "estimated-energy run with a measured or unmetered one); config: repeats "
                   "of one configuration in one column, each metric as mean ± sd")
    c.add_argument("--format", choices=COMPARE_FORMATS,
                   help="output format (default: from the -o file's suffix, else text); "
                   "columns are A, B, ... with a legend line each")
    c.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    c.add_argument("--bandwidth-gbs", type=float, metavar="GB/S",
                   help="measured memory bandwidth, for the decode roofline efficiency")
    c.set_defaults(func=_cmd_compare)

    k = sub.add_parser(
        "check", help="VALID, SMOKE or INVALID, with the reasons (MLPerf style)",
        description="Check a run: finished, no harness errors, no dropped replay turns, "
        "energy present when requested, no thermal throttling; with fewer trajectories "
        "than the reported percentile needs it is a SMOKE check, not a result. The same "
        "verdict `run` and `replay` print at their end; an accuracy run's samples are "
        "correct or incorrect, one that could not be answered a failed sample. Beside it, "
        "on a replay or accuracy run, MLPerf's compliance checks by name (temperature==0, "
        "seed==42, single_stream; a replay's no_dropped_turns, all_turns_observed; an "
        "accuracy run's min_sample_count; with --reference the accuracy gate), each PASS or "
        "FAIL with its values. Exit code 0 when VALID or SMOKE, 1 when INVALID.")
    k.add_argument("run_dir", type=Path, help="a run directory made by `edgeagent run`")
    k.add_argument("--json", action="store_true",
                   help="print one JSON object (the compliance checks under `compliance`)")
    k.add_argument("--strict", action="store_true",
                   help="exit 1 for a SMOKE check too, and for any failed MLPerf compliance "
                   "check (only a VALID, compliant result exits 0)")
    k.add_argument("--reference", type=float, metavar="X",
                   help="add the accuracy gate: PASS when the run's score >= 0.97 x X "
                   "(MLPerf's factor); on an accuracy run overall_accuracy, a percentage "
                   "(MLPerf's reference: 86.23); on a replay run the inline score, a "
                   "fraction (MLPerf's reference run: 0.6335)")
    k.set_defaults(func=_cmd_check)


def output_format(given: str | None, output: Path | None, formats: Sequence[str]) -> str:
    """--format when given; else the -o file's suffix when it names a format (r.html ->
    html, r.md -> md), so `report RUN -o r.html` writes HTML, not text; else text."""
    if given:
        return given
    suffix = output.suffix.lstrip(".").lower() if output else ""
    return suffix if suffix in formats and suffix != "text" else "text"


def _write_or_print(text: str, output: Path | None) -> None:
    if output is None:
        print(text)
        return
    try:
        output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {output}: {exc.strerror or exc} "
                        "(choose another --output)") from exc
    print(f"wrote {output}")


def _cmd_report(args: argparse.Namespace) -> int:
    from ..results import FORMATS, render

    fmt = output_format(args.format, args.output, FORMATS)
    _write_or_print(render(args.run_dir, fmt, args.bandwidth_gbs), args.output)
    return 0


def _cmd_compare(args: argparse.Namespace) -> int:
    from ..results import COMPARE_FORMATS, compare_dirs

    if args.bandwidth_gbs is not None and args.bandwidth_gbs <= 0:
        raise UserError("--bandwidth-gbs must be a positive number of GB/s")
    fmt = output_format(args.format, args.output, COMPARE_FORMATS)
    sweeps = [d for d in args.run_dirs if is_sweep_dir(d)]
    if sweeps:
        _write_or_print(_sweep_table(args.run_dirs, args.by, fmt), args.output)
        return 0
    _write_or_print(compare_dirs(args.run_dirs, args.by, fmt, args.bandwidth_gbs), args.output)
    return 0


def _sweep_table(dirs: Sequence[Path], by: str | None, fmt: str) -> str:
    """A sweep directory compared: its table, one row per configuration (mean ± sd)."""
    from ..sweep import load_index, render_table, sweep_table

    if len(dirs) > 1 or by:
        raise UserError(f"{dirs[0] if len(dirs) == 1 else 'a sweep directory'}: compare "
                        "takes one sweep directory alone (its table compares its "
                        "configurations), or run directories")
    return render_table(sweep_table(load_index(dirs[0])), fmt)


def _cmd_check(args: argparse.Namespace) -> int:
    from ..results import check_compliance, check_data, compliance_lines, load_run, verdict_lines

    data = load_run(args.run_dir)
    compliance = check_compliance(args.run_dir, data, args.reference)
    if compliance is None and args.reference is not None:
        raise UserError(f"--reference: {args.run_dir} is a live run, which has no MLPerf "
                        "score to gate; give a replay or accuracy run directory")
    verdict = check_data(data)
    if args.json:
        doc = {**verdict.to_dict(), "compliance": compliance.to_dict() if compliance else None}
        print(json.dumps(doc, indent=2))
    else:
        print("\n".join(verdict_lines(verdict)))
        for note in verdict.notes:
            print(f"  ok: {note}")
        print("\n".join(compliance_lines(compliance)))
    failed = compliance is not None and not compliance.passed
    return max(verdict.exit_code(args.strict), int(args.strict and failed))
