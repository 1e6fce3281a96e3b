"""Benchmark suites as data: task.yaml schema, discovery, hidden-test grading, oracle validation.

A suite is a directory of task directories, each holding `task.yaml`, `repo/` (what the agent
starts from), `hidden_tests/` (copied in only for grading, so the agent never sees them) and,
optionally, `oracle.yaml` (a reference solution replayed through the real tools to prove the
task is solvable and the hidden tests discriminate).

    schema.py       the records (Task, Suite, Grade, ...) and the file names and limits they use
    load.py         bundled suites, suite.yaml / task.yaml / oracle.yaml -> records, select_tasks
    grading.py      hidden tests by command or by unittest id (run_test_ids), grade
    test_runner.py  the grader's runner in the sandbox (`python -c`): holds the result key
    test_child.py   its child, the only process that imports the code under test
    validate.py     validate_task: fails before, passes after the oracle; ContextProbe
    stated_fix.py   whether a graded task's issue quotes its oracle's replacement text
    context.py      how large the context grows along an oracle, with the model's tokenizer
    describe.py     a task described for `edgeagent tasks`: repo size, oracle, context; SUITE/ID
"""

from .context import (
    OBSERVATION_TOKENS,
    ContextEstimate,
    ContextEstimator,
    EstimatorFactory,
    action_text,
    cache_dir,
    default_tokenizer_path,
    load_cached,
    store_cached,
    task_fingerprint,
)
from .describe import (
    TaskSize,
    estimate_context,
    find_task,
    repo_size,
    task_limits,
    task_row,
)
from .grading import grade, run_test_ids
from .load import bundled_suite_names, load_oracle, load_suite, select_tasks, suites_root
from .schema import (
    DEFAULT_TEST_TIMEOUT_S,
    GRADED_TIERS,
    GUIDED_TIER,
    HIDDEN_TESTS_DIR,
    ORACLE_FILE,
    REPO_DIR,
    SUITE_FILE,
    TASK_FILE,
    TASK_KINDS,
    TIERS,
    Grade,
    OracleStep,
    Suite,
    Task,
    TaskLimits,
    TestOutcome,
    ValidationResult,
)
from .stated_fix import fix_stated_in_issue, quoted_replacement
from .validate import ContextProbe, validate_task

__all__ = [
    # describe
    "TaskSize",
    "estimate_context",
    "find_task",
    "repo_size",
    "task_limits",
    "task_row",
    # schema
    "DEFAULT_TEST_TIMEOUT_S",
    "GRADED_TIERS",
    "GUIDED_TIER",
    "HIDDEN_TESTS_DIR",
    "ORACLE_FILE",
    "REPO_DIR",
    "SUITE_FILE",
    "TASK_FILE",
    "TASK_KINDS",
    "TIERS",
    "Grade",
    "OracleStep",
    "Suite",
    "Task",
    "TaskLimits",
    "TestOutcome",
    "ValidationResult",
    # load
    "bundled_suite_names",
    "load_oracle",
    "load_suite",
    "select_tasks",
    "suites_root",
    # grading
    "grade",
    "run_test_ids",
    # validate
    "ContextProbe",
    "validate_task",
    # stated_fix
    "fix_stated_in_issue",
    "quoted_replacement",
    # context
    "OBSERVATION_TOKENS",
    "ContextEstimate",
    "ContextEstimator",
    "EstimatorFactory",
    "action_text",
    "cache_dir",
    "default_tokenizer_path",
    "load_cached",
    "store_cached",
    "task_fingerprint",
]
