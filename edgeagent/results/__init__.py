"""What a run directory says, read through rundir: metrics,
percentiles and intervals, the validity check and MLPerf's compliance checks, report formats
and plots, tasks per tier, the cost of stuck trajectories, the comparison of runs, and the
summary of repeated runs (mean, sd, 95% interval)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "bandwidth": ("Bandwidth", "cache_path", "device_bandwidth", "measure_bandwidth",
                  "store_bandwidth"),
    "compare": ("COMPARE_FORMATS", "compare_dirs", "compare_runs", "energy_kind"),
    "consistency": ("OUTLIER_THRESHOLD", "PhaseConsistency", "SpeedConsistency", "SpeedOutlier",
                    "consistency_lines", "consistency_text", "speed_consistency"),
    "compliance": ("Check", "Compliance", "check_compliance", "compliance_lines"),
    "formats": ("FORMATS", "fmt_metric", "md_table", "render"),
    "interference": ("INTERFERENCE_THRESHOLD", "MIN_MODEL_S", "PhaseInterference",
                     "interference_check", "interference_lines", "interference_metrics",
                     "run_interference"),
    "interval": ("wilson_interval",),
    "metrics": ("RunData", "load_run", "metrics_by_key", "min_samples_for", "roofline_metrics",
                "run_metrics", "step_metrics", "task_rows"),
    "percentiles": ("binomial_cdf", "early_stopping_bound", "min_samples_for_bound", "percentile"),
    "plots": ("pyplot", "save_png"),
    "provenance": ("build_features", "device_lines", "settings_lines"),
    "repeats": ("Headline", "Pooled", "RepeatRun", "RepeatsSummary",
                "WIDE_HALF_WIDTH_PCT", "pool", "repeats_text", "summarize_repeats", "t_quantile",
                "wide_note", "write_repeats"),
    "report": ("render_report", "report_text"),
    "stuck_costs": ("StuckCost", "stuck_cost", "stuck_lines", "stuck_metrics"),
    "tiers": ("TierRow", "tier_lines", "tier_metrics", "tier_rows", "tier_table"),
    "validity": ("Verdict", "check_data", "check_run", "verdict_lines"),
    "accuracy_run": ("DATASET_NAME", "MIN_SAMPLE_COUNT",
                     "SUITE"),
    "html": ("PAGE_STYLE", "html_table"),
    "mlperf_report": ("write_accuracy_report", "write_replay_report"),
})
