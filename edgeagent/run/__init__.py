"""Runs: what live runs and replays share (session.py: the RunSession context manager over the
run directory's store, the meter, the step collector, provenance and the end of a run), the
live runner (runner.py) and the teacher-forced replay driver (replay.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "runner": ("RunResult", "execute_run", "preflight", "run_task"),
    "replay": ("ReplayResult", "ReplaySource", "SandboxExecutor", "choose_context",
               "default_dataset", "execute_replay", "resume_replay", "tokenizer_path"),
    "serve": ("ServeResult", "execute_serve"),
    "session": ("RunSession", "StepCollector", "build_provenance", "check_out_writable",
                "closing_on_error", "ended_status", "failure_reason", "sample_interval",
                "step_totals", "task_costs"),
})
