"""What `check` and `report` read of an accuracy run (edgeagent/accuracy writes it): the suite
it records, MLPerf's results file and its entry, and the sample count MLPerf's ruleset asks
for. Kept here, not in accuracy/, so that results never imports the accuracy package (which
imports results for its run directory)."""

# the suite an accuracy run records (config.yaml, run.db): how `check` and `report` know it
SUITE = "accuracy:bfcl_v4"
# MLPerf's accuracy dataset: its config's name, its entry's `dataset_name`
DATASET_NAME = "bfcl_v4::function_calling"
# MLPerf's own accuracy artifact (rundir's MLPERF_RESULTS_FILE): its
# `accuracy_scores` is a list of per-dataset entries, each a scalar `score` (BFCL's: the
# overall accuracy in percent) and the BFCL `breakdown` (commands/benchmark/accuracy.py)
# MLPerf's compliance checker (compliance/checker.py `check_accuracy`) asks the results'
# total_samples to reach the ruleset's min_sample_count_valid: 995 in mlperf-edge-current
# for Qwen3.6-27B (config/rulesets/mlcommons), the whole sampled set
MIN_SAMPLE_COUNT = 995
