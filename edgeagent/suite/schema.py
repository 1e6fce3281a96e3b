"""What a task is: the records a suite's YAML files load into, and the names they use."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

TASK_FILE = "task.yaml"
ORACLE_FILE = "oracle.yaml"
REPO_DIR = "repo"
HIDDEN_TESTS_DIR = "hidden_tests"
SUITE_FILE = "suite.yaml"

# Per-test limit when grading by test id: a runaway test fails on its own, not the whole run.
DEFAULT_TEST_TIMEOUT_S = 10.0

# Graded tiers describe a problem as a user reports it (symptoms, expected behaviour, a
# failing example), never the edit. `guided` tasks state the fix in the issue: they check
# the loop's mechanics and are reported apart from the graded tiers.
GRADED_TIERS = ("easy", "medium", "hard")
GUIDED_TIER = "guided"
TIERS = (*GRADED_TIERS, GUIDED_TIER)
# The kinds of work a task exercises; a task's tags name one or more (plus any free tags).
TASK_KINDS = (
    "one-line-bug",
    "multi-file-bug",
    "feature",
    "failing-test-diagnosis",
    "refactor",
    "config-cli",
    "performance",
    "docs-driven",
)


@dataclass(frozen=True)
class TaskLimits:
    """Per-task limits; None means "use the run config's value"."""

    max_steps: int | None
    wall_s: float | None
    command_timeout_s: float
    test_timeout_s: float = DEFAULT_TEST_TIMEOUT_S


@dataclass(frozen=True)
class OracleStep:
    tool: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    issue: str
    test_command: str
    hidden_test_command: str
    limits: TaskLimits
    tags: tuple[str, ...]
    dir: Path
    repo_dir: Path
    hidden_tests_dir: Path
    tier: str | None = None
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(t for t in self.tags if t in TASK_KINDS)


@dataclass(frozen=True)
class Suite:
    name: str
    path: Path
    tasks: tuple[Task, ...]
    description: str = ""
    strict: bool = False  # every task must declare tier, a kind tag and fail_to_pass


@dataclass(frozen=True)
class TestOutcome:
    """One graded test id: pass | fail | error | timeout | missing (the id did not load)."""

    __test__ = False  # not a pytest class

    id: str
    status: str
    detail: str = ""


@dataclass(frozen=True)
class Grade:
    resolved: bool
    exit_code: int | None
    output: str
    wall_ms: float
    timed_out: bool
    tests: tuple[TestOutcome, ...] = ()  # per test id, when the task lists them


@dataclass(frozen=True)
class ValidationResult:
    task_id: str
    ok: bool
    before: Grade
    after: Grade | None
    problems: tuple[str, ...]
    # Prompt tokens at each oracle step's generation, and the final context (last prompt plus
    # the last action), with the default model's tokenizer; () / None when not measured.
    context_per_step: tuple[int, ...] = ()
    final_context_tokens: int | None = None
    context_note: str | None = None  # why the context was not measured
