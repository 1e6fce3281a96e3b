"""What a run's tasks count as: an agent run's tasks are resolved or not; an accuracy run's
(`edgeagent accuracy`) are BFCL samples, correct or incorrect. The verdict (validity.py), the
report and the metrics read a run's outcomes through here, so an accuracy run reads as
"12/24 correct", never as "0/24 resolved".

A sample the model could not answer (its prompt does not fit the context: termination
`context_overflow`) is a failed sample, as MLPerf's accuracy phase counts an issued sample
that never completed: incorrect, not a harness error. A run recorded before accuracy wrote
such a sample `incorrect` has it as outcome `error`; it reads the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .accuracy_run import SUITE as ACCURACY_SUITE

if TYPE_CHECKING:
    from .metrics import RunData

SUCCESS_OUTCOMES = frozenset({"resolved", "correct"})
HARNESS_TERMINATIONS = frozenset({"engine_error", "sandbox_error"})
UNANSWERED = "context_overflow"  # an accuracy sample whose prompt did not fit


@dataclass(frozen=True)
class Words:
    """How a report names a run's units and their success."""

    unit: str  # task | sample
    success: str  # resolved | correct
    total: str  # the task table's total cell: "N/M <total>"


AGENT_WORDS = Words("task", "resolved", "res.")
ACCURACY_WORDS = Words("sample", "correct", "correct")


@dataclass(frozen=True)
class AccuracyCounts:
    samples: int
    correct: int
    incorrect: int  # unanswered ones included
    unanswered: int  # could not be answered: context overflow
    errors: int  # harness errors (engine): not counted as incorrect


def is_accuracy(data: RunData) -> bool:
    """An `edgeagent accuracy` run: its suite, from config.yaml or its run record."""
    suite = data.config.get("suite") or (data.runs[0].get("suite") if data.runs else None)
    return suite == ACCURACY_SUITE


def words(data: RunData) -> Words:
    return ACCURACY_WORDS if is_accuracy(data) else AGENT_WORDS


def succeeded(task: dict[str, Any]) -> bool:
    return task["outcome"] in SUCCESS_OUTCOMES


def unanswered(task: dict[str, Any]) -> bool:
    """An accuracy sample the model could not answer (a failed sample, not an error)."""
    return task["termination"] == UNANSWERED


def harness_error(task: dict[str, Any], accuracy: bool) -> bool:
    """The harness (engine, sandbox) failed the task, not the model; in an accuracy run a
    sample that could not be answered is the model's failure, whatever its outcome says."""
    if accuracy and unanswered(task):
        return False
    return task["outcome"] == "error" or task["termination"] in HARNESS_TERMINATIONS


def accuracy_counts(tasks: Sequence[dict[str, Any]]) -> AccuracyCounts:
    errors = sum(1 for t in tasks if harness_error(t, True))
    correct = sum(1 for t in tasks if succeeded(t))
    return AccuracyCounts(len(tasks), correct, len(tasks) - correct - errors,
                          sum(1 for t in tasks if unanswered(t)), errors)


def accuracy_note(tasks: Sequence[dict[str, Any]]) -> str:
    """The verdict's line on an accuracy run's samples."""
    c = accuracy_counts(tasks)
    parts = [f"{c.incorrect} incorrect"]
    if c.unanswered:
        parts[0] += (f" ({c.unanswered} could not be answered: context_overflow, a failed "
                     "sample as MLPerf counts it)")
    if c.errors:
        parts.append(f"{c.errors} harness error(s)")
    return f"accuracy samples: {c.correct}/{c.samples} correct, " + ", ".join(parts)
