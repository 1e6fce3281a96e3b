"""What a run directory says: the SQLite store (WAL, crash-safe, resumable), metrics,
percentiles and intervals, the validity check and MLPerf's compliance checks, report formats
and plots, tasks per tier, the cost of stuck trajectories, the comparison of runs, and the
summary of repeated runs (mean, sd, 95% interval)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "bandwidth": ("Bandwidth", "measure_bandwidth"),
    "compare": ("compare_dirs", "compare_runs"),
    "consistency": ("OUTLIER_THRESHOLD", "PhaseConsistency", "SpeedConsistency", "SpeedOutlier",
                    "consistency_lines", "consistency_text", "speed_consistency"),
    "compliance": ("Check", "Compliance", "check_compliance", "compliance_lines"),
    "formats": ("FORMATS", "fmt_metric", "md_table", "render"),
    "interference": ("INTERFERENCE_THRESHOLD", "MIN_MODEL_S", "PhaseInterference",
                     "interference_check", "interference_lines", "interference_metrics",
                     "run_interference"),
    "interval": ("wilson_interval",),
    "metrics": ("load_run", "metrics_by_key", "roofline_metrics", "run_metrics",
                "step_metrics", "task_rows"),
    "percentiles": ("binomial_cdf", "early_stopping_bound", "min_samples_for_bound",
                    "percentile"),
    "plots": ("save_png",),
    "provenance": ("build_features", "device_lines", "settings_lines"),
    "repeats": ("REPEATS_FILE", "WIDE_HALF_WIDTH_PCT", "Headline", "Pooled", "RepeatRun",
                "RepeatsSummary", "pool", "repeats_text", "summarize_repeats", "t_quantile",
                "wide_note", "write_repeats"),
    "report": ("render_report", "report_text"),
    "resume": ("ResumePlan", "plan_resume", "resume_config"),
    "store": ("RunStore", "make_run_dir", "open_run_db"),
    "stuck_cost": ("StuckCost", "stuck_cost", "stuck_lines", "stuck_metrics"),
    "tiers": ("TierRow", "tier_lines", "tier_metrics", "tier_rows", "tier_table"),
    "validity": ("check_data", "check_run", "verdict_lines"),
})
