"""Which BFCL records a run evaluates, as MLPerf's dataset builder samples them, then the
quick-run cuts of our own (`--subset`, `--limit`).

MLPerf: every subset of the asked categories; per subset the first max(1, int(n x pct / 100))
records, or all of them when it holds `subset_floor` records or fewer; the subsets in sorted
name order (pandas' groupby), each in its file's order; issued in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from ..errors import UserError
from .records import BfclRecord, load_subset, unknown_subset
from .rules import EDGE_PLAN, SINGLE_TURN_SUBSETS, SamplingPlan


def sample_size(total: int, pct: float | None, floor: int | None) -> int:
    """How many of a subset's `total` records MLPerf keeps (the first ones)."""
    if floor is not None and total <= floor:
        return total
    if pct is None:
        return total
    return max(1, int(total * pct / 100))


def sample_records(by_subset: Mapping[str, Sequence[BfclRecord]],
                   plan: SamplingPlan = EDGE_PLAN) -> list[BfclRecord]:
    """MLPerf's sample of `by_subset`, in its issue order."""
    out: list[BfclRecord] = []
    for subset in sorted(by_subset):
        records = by_subset[subset]
        out += records[:sample_size(len(records), plan.pct(subset), plan.subset_floor)]
    return out


def spread(records: Sequence[BfclRecord], limit: int) -> list[BfclRecord]:
    """The first `limit` records taking each subset in turn (round robin over the subsets in
    issue order, each subset's records in order), so a quick run touches every subset;
    MLPerf's own max_samples is a plain head, which would be the first subset alone."""
    by_subset: dict[str, list[BfclRecord]] = {}
    for r in records:
        by_subset.setdefault(r.subset, []).append(r)
    interleaved = [r for group in zip_longest(*by_subset.values()) for r in group if r]
    return interleaved[:limit]


@dataclass(frozen=True)
class Selection:
    """What `edgeagent accuracy` was asked for: subsets (None: the plan's categories) and a
    limit (None: every sampled record)."""

    subsets: tuple[str, ...] | None = None
    limit: int | None = None
    plan: SamplingPlan = EDGE_PLAN

    def check(self) -> None:
        """The names and numbers, before anything is loaded."""
        for name in self.subsets or ():
            if name not in SINGLE_TURN_SUBSETS:
                raise UserError(unknown_subset(name))
        if self.limit is not None and self.limit < 1:
            raise UserError(f"--limit {self.limit}: give at least 1 sample")

    def subset_names(self) -> tuple[str, ...]:
        return self.subsets if self.subsets else self.plan.subsets()


def select_records(selection: Selection,
                   load: Callable[[str], list[BfclRecord]] = load_subset) -> list[BfclRecord]:
    """The records a run evaluates, in order: MLPerf's sample of the asked subsets, then
    `--limit`."""
    selection.check()
    chosen = sample_records({s: load(s) for s in selection.subset_names()}, selection.plan)
    return spread(chosen, selection.limit) if selection.limit is not None else chosen
