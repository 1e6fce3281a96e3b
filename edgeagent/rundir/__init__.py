"""The run directory, at the bottom of the house: its file names, the SQLite store (WAL,
one commit per step, resumable), the plan for resuming an interrupted run, and the readers
of its plain files. Everything else reads and writes run directories through it."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "files": ("ACCURACY_RESULTS_FILE", "ACCURACY_SAMPLES_FILE", "CONFIG_FILE", "DB_FILE",
              "MLPERF_DIR", "MLPERF_RESULTS_FILE", "PROVENANCE_FILE", "REPEATS_FILE", "REPORT_FILE",
              "SCORES_FILE", "SUMMARY_FILE", "SUPERSEDED_TURNS_FILE", "TRAJECTORIES_DIR",
              "TURNS_FILE", "is_run_dir", "read_config", "read_provenance", "replace_file",
              "trajectory_path"),
    "provenance_record": ("Provenance",),
    "read": ("StoredRun", "read_run"),
    "resume": ("ResumePlan", "plan_resume", "resume_config"),
    "turns": ("TURN_FIELDS", "judgement", "read_turns", "turns_of", "write_turns_file"),
    "store": ("LOAD_PARTS", "RunStore", "kept_attempts", "make_run_dir", "open_run_db"),
})
