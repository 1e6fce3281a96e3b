"""Headless console: one line per step, one per task, a final summary; or JSON lines; and
the validity verdict at the end of a run."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import TextIO

from .events import (
    Event,
    RunFinished,
    RunStarted,
    StepRecord,
    TaskRecord,
    TaskStarted,
    TokenDelta,
)
from .rundir import Provenance


def _tok_s(tokens: int, ms: float) -> str:
    return f"{tokens / (ms / 1000):5.1f}" if ms > 0 and tokens > 0 else "    -"


def step_line(s: StepRecord) -> str:
    # a served request (an external agent's) names no tool unless the answer was a native call
    action = s.action_name or ("FORMAT-ERROR" if s.format_error else "answer")
    exit_code = "" if s.tool_exit_code is None else f" exit {s.tool_exit_code}"
    # "tool error": the tool call ran but failed (docs/run.md "Output"), not a harness error
    flag = " tool error" if s.tool_error and s.action_name else ""
    # decode tok/s counts the tokens produced after the first one (TPOT convention)
    return (
        f"[{s.task_id}] step {s.step + 1:>2} {action:<12} "
        f"ctx {s.context_tokens:>5} reused {s.reused_tokens:>5} prefill {s.prefill_tokens:>4} | "
        f"prefill {s.prefill_ms:7.0f} ms | "
        f"decode {_tok_s(s.decoded_tokens - 1, s.decode_ms)} tok/s "
        f"({s.decoded_tokens:>3} tok) | tool {s.tool_ms:6.0f} ms{exit_code}{flag}"
    )


# endings a reader cannot guess from the name alone: the task line is followed by why
EXPLAINED_TERMINATIONS = ("context_overflow", "engine_error", "sandbox_error")


def task_line(t: TaskRecord) -> str:
    energy = (
        f"{t.energy_j:.1f} J" if t.energy_j is not None else f"energy n/a ({t.energy_null_reason})"
    )
    line = (
        f"[{t.task_id}] {t.outcome.upper()} ({t.termination}) in {t.steps} steps, "
        f"{t.wall_ms / 1000:.1f} s: prefill {t.prefill_ms / 1000:.1f} s, "
        f"decode {t.decode_ms / 1000:.1f} s, tool {t.tool_ms / 1000:.1f} s; "
        f"{t.prefill_tokens} prefilled / {t.decoded_tokens} decoded tokens; {energy}"
    )
    why = t.error or t.termination_detail
    if t.termination in EXPLAINED_TERMINATIONS and why:
        line += f"\n[{t.task_id}]   {t.termination}: {why[:400]}"
    return line


def summary_lines(r: RunFinished, run_dir: str | None, replay: bool = False) -> list[str]:
    n = len(r.tasks)
    steps = sum(t.steps for t in r.tasks)
    if replay:  # a replayed conversation is not solved or failed: it is replayed
        done = sum(1 for t in r.tasks if t.outcome == "replayed")
        what = (f"{done}/{n} {'conversation' if n == 1 else 'conversations'} replayed, "
                f"{steps} {'turn' if steps == 1 else 'turns'}")
    elif r.tasks and all(t.outcome == "served" for t in r.tasks):  # edgeagent serve
        what = f"{steps} {'request' if steps == 1 else 'requests'} served"
    else:
        resolved = sum(1 for t in r.tasks if t.outcome == "resolved")
        what = f"{resolved}/{n} resolved, {steps} {'step' if steps == 1 else 'steps'}"
    lines = [f"run {r.run_id}: {r.status}, {what}, {r.wall_ms / 1000:.1f} s"]
    if run_dir:
        lines.append(f"results: {run_dir}  (edgeagent report {run_dir})")
    return lines


class ConsolePrinter:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.run_dir: str | None = None
        self.replay = False

    def _print(self, line: str) -> None:
        print(line, file=self.stream, flush=True)

    def emit(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            model = Provenance.from_dict(event.provenance).model
            self.run_dir = event.run_dir
            self.replay = event.suite.startswith("replay:")
            n = len(event.task_ids)
            # an endpoint's server chooses its own threads: name the server instead
            where = (f"{model['n_threads']} threads" if model.get("n_threads") is not None
                     else f"endpoint {model.get('endpoint') or 'server'}")
            self._print(
                f"run {event.run_id}: suite {event.suite} ({n} task{'' if n == 1 else 's'}), "
                f"model {model.get('name') or model.get('path') or model.get('served_model')}"
                f", {where}, n_ctx {model.get('n_ctx')}"
            )
        elif isinstance(event, TaskStarted):
            self._print(f"[{event.task_id}] {event.title}")
        elif isinstance(event, StepRecord):
            self._print(step_line(event))
        elif isinstance(event, TaskRecord):
            self._print(task_line(event))
        elif isinstance(event, RunFinished):
            for line in summary_lines(event, self.run_dir, self.replay):
                self._print(line)


class JsonPrinter:
    """Machine-readable events, one JSON object per line, with an `event` type field."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def emit(self, event: Event) -> None:
        if isinstance(event, TokenDelta):
            return  # one line per token would drown the log; StepRecord has the text
        record = {"event": type(event).__name__, **dataclasses.asdict(event)}
        print(json.dumps(record, default=str), file=self.stream, flush=True)


class VerdictPrinter:
    """Prints the run's check (`edgeagent check`'s verdict) when it finishes and keeps it for
    the exit code; it must come after the store in the fan-out (the store has then committed
    the run's final status)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout
        self.run_dir: str | None = None
        self.exit_code = 0  # the verdict's: 0 VALID or SMOKE, 1 INVALID or not checked

    def emit(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.run_dir = event.run_dir
        elif isinstance(event, RunFinished) and self.run_dir:
            lines, self.exit_code = run_verdict(self.run_dir)
            print("\n".join(lines), file=self.stream, flush=True)


def run_verdict(run_dir: str | Path) -> tuple[list[str], int]:
    """`edgeagent check`'s lines and exit code for a finished run; a check that cannot be
    made is one line and exit code 1, never an exception (it must not fail the run)."""
    from .results import check_run, verdict_lines

    try:
        verdict = check_run(run_dir)
        return verdict_lines(verdict), verdict.exit_code()
    except Exception as exc:  # noqa: BLE001 - a failed check must not fail the run
        return [f"check not made: {exc}"], 1


def resume_hint(run_dir: str | None) -> str:
    """What to type to continue a stopped run (after Ctrl-C, SIGTERM, `q` or a lost reader)."""
    return f"; continue with: edgeagent run --resume {run_dir}" if run_dir else ""
