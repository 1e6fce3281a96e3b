"""`edgeagent tasks list | show | validate`: inspect suites, their sizes and their oracles."""

from __future__ import annotations

import argparse
import json
import sys

from ..suite import (
    ORACLE_FILE,
    ContextEstimate,
    EstimatorFactory,
    Task,
    ValidationResult,
    find_task,
    load_oracle,
    load_suite,
    select_tasks,
    store_cached,
    task_fingerprint,
    task_limits,
    task_row,
    validate_task,
)

# --------------------------------------------------------------------------- commands


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tasks", help="list, show or validate task suites",
                       description="Inspect task suites.")
    tsub = p.add_subparsers(dest="tasks_cmd", metavar="{list,show,validate}")
    tsub.required = True
    lp = tsub.add_parser(
        "list", help="the tasks of a suite with their size, oracle length and context",
        description="List a suite's tasks: id, tier, tags, repo files and lines, oracle steps "
        "and the oracle's estimated final context in tokens (default model's tokenizer; "
        "cached after the first computation).")
    lp.add_argument("suite", nargs="?", default="smoke", help="suite name or directory")
    lp.add_argument("--json", action="store_true", help="print a JSON list of task objects")
    lp.add_argument("--no-context", action="store_true",
                    help="skip the context estimate (no oracle replay)")
    lp.set_defaults(func=_cmd_list)
    sp = tsub.add_parser(
        "show", help="one task in full: issue, tests, sizes, the oracle's steps",
        description="Show a task: SUITE/ID, or a bare ID searched in every bundled suite.")
    sp.add_argument("task", metavar="ID", help="task id, or SUITE/ID (SUITE may be a directory)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.set_defaults(func=_cmd_show)
    vp = tsub.add_parser(
        "validate", help="replay each oracle through the real tools and check the tests",
        description="For every task: FAIL_TO_PASS tests fail on the fresh repo and "
        "PASS_TO_PASS tests pass, the oracle's tool calls all succeed, every listed test "
        "passes afterwards within the time limits; prints the context tokens at each "
        "oracle step.")
    vp.add_argument("suite", help="suite name or directory")
    vp.add_argument("--task", dest="tasks", action="append", metavar="ID",
                    help="validate only this task (repeatable)")
    vp.add_argument("--no-context", action="store_true", help="skip the context count")
    vp.set_defaults(func=_cmd_validate)


def _fmt_tokens(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _cmd_list(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    factory = None if args.no_context else EstimatorFactory()
    rows = []
    for task in suite.tasks:
        if factory is not None and not args.json and sys.stderr.isatty():
            print(f"\r  estimating {task.id} ...", end="", file=sys.stderr, flush=True)
        rows.append(task_row(task, factory))
    if factory is not None and not args.json and sys.stderr.isatty():
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    header = ("id", "tier", "tags", "files", "lines", "steps", "context")
    table = [header] + [
        (r["id"], r["tier"] or "-", ",".join(r["tags"]) or "-", str(r["files"]),
         str(r["lines"]), str(r["oracle_steps"] or "-"), _fmt_tokens(r["est_context_tokens"]))
        for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = {3, 4, 5, 6}
    for row in table:
        print("  ".join(c.rjust(w) if i in right else c.ljust(w)
                        for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    notes = {r["context_note"] for r in rows if r["context_note"]}
    for note in sorted(notes):
        print(f"context: {note}", file=sys.stderr)
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    suite, task = find_task(args.task)
    row = task_row(task, EstimatorFactory())
    row.update(
        suite=suite.name, dir=str(task.dir), issue=task.issue,
        test_command=task.test_command, hidden_test_command=task.hidden_test_command,
        fail_to_pass=list(task.fail_to_pass), pass_to_pass=list(task.pass_to_pass),
        limits={"max_steps": task.limits.max_steps, "wall_s": task.limits.wall_s,
                "command_timeout_s": task.limits.command_timeout_s,
                "test_timeout_s": task.limits.test_timeout_s},
        oracle=_oracle_steps(task),
    )
    if args.json:
        print(json.dumps(row, indent=2))
        return 0
    print(f"{suite.name}/{task.id}: {task.title}")
    print(f"tier: {task.tier or '-'}   tags: {', '.join(task.tags) or '-'}")
    print(f"repo: {row['files']} files, {row['lines']} lines   oracle: {row['oracle_steps']} steps"
          f"   estimated final context: {_fmt_tokens(row['est_context_tokens'])} tokens")
    if row["context_per_step"]:
        print("context per step: " + " ".join(map(str, row["context_per_step"])))
    print(f"visible tests: {task.test_command}")
    print(f"hidden tests:  {task.hidden_test_command}")
    for key in ("fail_to_pass", "pass_to_pass"):
        for test_id in row[key]:
            print(f"  {key.upper()}: {test_id}")
    print(f"dir: {task.dir}")
    print("\nissue:\n" + "\n".join("  " + line for line in task.issue.splitlines()))
    if row["oracle"]:
        print("\noracle (the reference solution, one tool call a step):")
        for n, step in enumerate(row["oracle"], start=1):
            print(f"  {n}. {step['tool']} {json.dumps(step['args'], ensure_ascii=False)}")
    return 0


def _oracle_steps(task: Task) -> list[dict]:
    """The oracle's tool calls; none when the task ships no oracle.yaml."""
    if not (task.dir / ORACLE_FILE).is_file():
        return []
    return [{"tool": s.tool, "args": s.args} for s in load_oracle(task)]


def _describe_ok(task: Task, result: ValidationResult) -> str:
    if task.fail_to_pass:
        what = (f"{len(task.fail_to_pass)} FAIL_TO_PASS fail before and pass after,"
                f" {len(task.pass_to_pass)} PASS_TO_PASS pass both")
    else:
        what = "hidden tests fail before, pass after the oracle"
    return f"ok    {task.id}: {what}"


def _describe_context(result: ValidationResult) -> str:
    if result.final_context_tokens is None:
        return f"      context: not measured ({result.context_note})"
    steps = " ".join(f"{n}:{t}" for n, t in enumerate(result.context_per_step, start=1))
    return (f"      context tokens per step {steps} -> final {result.final_context_tokens:,}")


def _cmd_validate(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    tasks = select_tasks(suite, args.tasks)
    factory = None if args.no_context else EstimatorFactory()
    failed = 0
    for task in tasks:
        probe = factory.estimator() if factory is not None else None
        result = validate_task(task, task_limits(task), probe)
        if result.ok:
            print(_describe_ok(task, result))
        else:
            failed += 1
            print(f"FAIL  {task.id}: " + "; ".join(result.problems))
        if factory is not None:
            print(_describe_context(result))
            if result.ok and factory.model_path is not None:
                store_cached(task, task_fingerprint(task, factory.model_path), ContextEstimate(
                    task.id, result.context_per_step, result.final_context_tokens, None))
        sys.stdout.flush()
    if failed:
        print(f"{len(tasks)} task{'' if len(tasks) == 1 else 's'}, {failed} failed")
        return 1
    print(f"{len(tasks)} task{'' if len(tasks) == 1 else 's'} validated")
    return 0
