"""Runs: the one driver of every kind of run (driver.py: a Workload's units through the run
directory, the session and the resume-aware loop), the session itself (session.py: the store,
the meter, the step collector, provenance and the end of a run), the one task-record builder
(task_record.py), and the workloads: live (runner.py), replay (replay.py), serve (serve.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "driver": ("Loaded", "Workload", "drive", "finished_units", "model_label"),
    "runner": ("LiveWorkload", "RunResult", "execute_run", "preflight", "run_task"),
    "replay": ("ReplayResult", "ReplaySource", "ReplayWorkload", "SandboxExecutor",
               "choose_context", "default_dataset", "execute_replay", "resume_replay",
               "tokenizer_path"),
    "serve": ("ServeResult", "ServeWorkload", "execute_serve"),
    "session": ("RunSession", "StepCollector", "build_provenance", "check_out_writable",
                "closing_on_error", "device_provenance", "ended_status", "failure_reason",
                "sample_interval"),
    "task_records": ("final_context_tokens", "step_totals", "task_costs", "task_record"),
})
