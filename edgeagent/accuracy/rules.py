"""MLPerf Edge Agentic's accuracy phase as data: BFCL v4's single-turn subsets and categories,
how each category aggregates, the sampling of the edge config, and the checker settings.

Read from mlcommons/endpoints (our own code, the same rules):
src/inference_endpoint/dataset_manager/predefined/bfcl_v4/__init__.py (subsets, categories,
per-subset sampling), src/inference_endpoint/evaluation/bfcl_v4_scorer.py (per-sample rules,
aggregation, field names), examples/11_Edge_Agentic_Example/online_edge_full_run.yaml (the
edge config: categories, 62/10/10, subset_floor 25, dataloader_random_seed 42, temperature 0,
seed 42, max_new_tokens 1024) and pyproject.toml's `bfcl` extra (bfcl-eval==2026.3.23 and
soundfile, which bfcl-eval's imports need).
"""

from __future__ import annotations

from dataclasses import dataclass

# the names `check` and `report` read too live with them in results (no import cycle)
from ..results import DATASET_NAME, MIN_SAMPLE_COUNT, SUITE  # noqa: F401

# the pinned checker: a different bfcl-eval may score differently, so the run records it
BFCL_EVAL_VERSION = "2026.3.23"
# the extra that brings it (pyproject.toml), named in every error that needs it
EXTRA_INSTALL = "pip install 'edgeagent[accuracy]'"

SINGLE_TURN_SUBSETS = (
    "simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
    "parallel_multiple", "live_simple", "live_multiple", "live_parallel",
    "live_parallel_multiple", "irrelevance", "live_irrelevance", "live_relevance",
)

# category -> its subsets, in MLPerf's order (the aggregation and the report follow it);
# live_relevance is in no category: scored per sample, reported apart ("unscored_subsets")
CATEGORIES: dict[str, tuple[str, ...]] = {
    "non_live": ("simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
                 "parallel_multiple"),
    "live": ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple"),
    "hallucination": ("irrelevance", "live_irrelevance"),
}
CATEGORY_OF = {s: c for c, subsets in CATEGORIES.items() for s in subsets}

# live: mean weighted by samples; non_live: the simple_* subsets first averaged into one,
# then the mean with the others; hallucination: the plain mean of its subsets
AGGREGATION = {"live": "sample_weighted", "non_live": "hierarchical",
               "hallucination": "unweighted"}
SIMPLE_SUBSETS = tuple(s for s in CATEGORIES["non_live"] if s.startswith("simple_"))

# the right answer is no tool call at all / any tool call (tool-call presence, not the AST)
NO_CALL_SUBSETS = frozenset(CATEGORIES["hallucination"])
ANY_CALL_SUBSETS = frozenset({"live_relevance"})

# the checker's language per subset (Python for the others)
SUBSET_LANGUAGE = {"simple_java": "JAVA", "simple_javascript": "JAVASCRIPT"}
# an OpenAI function-calling model name: its "-FC" config maps `_` in the model's function
# names back to the `.` BFCL's names hold (tools are sent with `.` replaced by `_`)
CHECKER_MODEL_NAME = "gpt-4o-2024-11-20-FC"

# the edge config's generation settings
TEMPERATURE = 0.0
SEED = 42
MAX_NEW_TOKENS = 1024
# MLPerf's accuracy requests carry the functions as tools with tool_choice "auto": the model
# may answer with a call or without one (the hallucination records need the latter)
TOOL_CHOICE = "auto"
# the edge config's gate: at least this share of the reference accuracy
GATE_FACTOR = 0.97


@dataclass(frozen=True)
class SamplingPlan:
    """Which records a run evaluates: per subset, the first `pct`% of its records (at least
    one) at its category's rate; a subset of `subset_floor` records or fewer is taken whole.
    `seed` is MLPerf's dataloader_random_seed: recorded (its compliance check requires 42)
    but it selects nothing, as MLPerf's accuracy sampling is a deterministic head and its
    accuracy samples are issued in order (SequentialSampleOrder)."""

    categories: tuple[str, ...] = ("non_live", "live", "hallucination")
    category_pct: tuple[tuple[str, float], ...] = (
        ("non_live", 62.0), ("live", 10.0), ("hallucination", 10.0))
    subset_floor: int = 25
    seed: int = 42

    def subsets(self) -> tuple[str, ...]:
        return tuple(s for c in self.categories for s in CATEGORIES[c])

    def pct(self, subset: str) -> float | None:
        """The subset's sampling rate; None (taken whole) for a subset in no category."""
        return dict(self.category_pct).get(CATEGORY_OF.get(subset, ""))


EDGE_PLAN = SamplingPlan()
