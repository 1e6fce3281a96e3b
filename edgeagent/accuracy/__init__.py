"""MLPerf Edge Agentic's accuracy phase: BFCL v4 single-turn sampled as MLPerf's edge config
samples it (rules.py, sampling.py), its records from the bfcl-eval package (the `accuracy`
extra; bfcl.py is the one module that imports it, records.py), each sent through the model's
chat template with its functions as `tools`, scored by MLPerf's per-sample rules with
bfcl-eval's AST checker (extract.py, text_calls.py, scoring.py) and aggregated as MLPerf does
(aggregate.py); the run around it (run.py), its per-sample file (samples.py), its results
file and summary (summary.py), its progress bar (progress.py), and a run scored again from
what it recorded (rescore.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "aggregate": ("breakdown", "category_score"),
    "bfcl": ("AstChecker", "CheckResult", "bfcl_version", "data_dir", "openai_tools"),
    "extract": ("call_array", "checker_calls", "extract_calls", "made_tool_call",
                "scorable_calls", "scored_output", "tool_calls_json"),
    "progress": ("ProgressBar",),
    "records": ("BfclRecord", "load_subset", "record_of", "unknown_subset"),
    "rules": ("BFCL_EVAL_VERSION", "CATEGORIES", "DATASET_NAME", "EDGE_PLAN", "EXTRA_INSTALL",
              "GATE_FACTOR", "MAX_NEW_TOKENS", "MIN_SAMPLE_COUNT", "SEED",
              "SINGLE_TURN_SUBSETS", "SUITE", "SamplingPlan", "TOOL_CHOICE"),
    "rescore": ("Rescored", "rescore_run", "rescored_sample"),
    "workload": ("AccuracyResult", "execute_accuracy"),
    "samples": ("SampleResult", "read_samples"),
    "sampling": ("Selection", "sample_records", "sample_size", "select_records", "spread"),
    "scoring": ("Checker", "Verdict", "score_sample"),
    "summary": ("Gate", "gate", "results_document", "score_of",
                "summary_text", "write_results"),
    "text_calls": ("calls_in_text",),
})
