"""Engine-settings sweeps: llama-bench-style lists expanded into configurations (grid.py),
each configuration x repeat a normal run directory made by a child run (execute.py), the
sweep directory's index, sweep.json (index.py), its plan (plan.py), one table row per
configuration as mean ± sd (table.py), and the table as text, md, csv, json or HTML with the
Pareto front (render.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "grid": ("Configuration", "SETTINGS", "expand", "parse_lists"),
    "sweep_index": ("INDEX_FILE", "RUNS_DIR", "SweepIndex", "is_sweep_dir", "load_index"),
    "plan": ("SweepPlan", "new_plan", "plan_of_index", "replay_workload", "start_index",
             "suite_workload"),
    "execute": ("Workload", "child_command", "run_sweep", "sweep_running"),
    "table": ("COLUMNS", "SweepTable", "pareto_front", "sweep_table"),
    "render": ("FORMATS", "OUTPUT_FILES", "render_table", "write_outputs"),
})
