"""Resolved rate of seeded repeats, with a 95% interval, in Markdown, for docs/results.md.

    python tools/resolved_ci.py "greedy=RUN" "T0.7=RUN1,RUN2,RUN3" ...

Each argument is LABEL=RUN[,RUN...]: the runs of one sampler setting (one per seed). Per
label and tier: resolved per run, the pooled k/n, the rate with its Wilson 95% interval
(attempts treated as independent; they are clustered by task, so read it as a lower bound
on the uncertainty), and the mean +- sd of the per-run rate. Every number comes from the run
directories' task rows and recorded tiers.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgeagent.errors import UserError  # noqa: E402
from edgeagent.results.interval import wilson_interval  # noqa: E402
from edgeagent.results.metrics import RunData, load_run  # noqa: E402
from edgeagent.results.tiers import tasks_by_tier  # noqa: E402


def _tier_counts(data: RunData) -> dict[str, tuple[int, int]]:
    """Tier -> (resolved, attempted)."""
    return {tier: (sum(t["outcome"] == "resolved" for t in tasks), len(tasks))
            for tier, tasks in tasks_by_tier(data).items()}


def _sampler(data: RunData) -> str:
    c = data.config
    if not c.get("temperature"):
        return "greedy" + (f", repeat penalty {c['repeat_penalty']}"
                           if c.get("repeat_penalty", 1.0) != 1.0 else "")
    return (f"T {c['temperature']}, top-p {c.get('top_p')}, repeat penalty "
            f"{c.get('repeat_penalty')}, seed {c.get('seed')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="+", help="LABEL=RUN[,RUN...]")
    args = parser.parse_args(argv)
    print("| setting | tier | per run | pooled | rate | 95% interval (Wilson) | mean +- sd |")
    print("| --- | --- | --- | ---: | ---: | --- | --- |")
    for group in args.groups:
        label, sep, runs = group.partition("=")
        if not sep or not runs:
            parser.error(f"{group!r}: give LABEL=RUN[,RUN...]")
        try:
            loaded = [load_run(r) for r in runs.split(",")]
        except UserError as exc:
            sys.exit(f"{group}: {exc}")
        counts = [_tier_counts(d) for d in loaded]
        for tier in sorted({t for c in counts for t in c}):
            per = [c.get(tier, (0, 0)) for c in counts]
            k, n = sum(p[0] for p in per), sum(p[1] for p in per)
            lo, hi = wilson_interval(k, n)
            rates = [p[0] / p[1] for p in per if p[1]]
            spread = (f"{statistics.mean(rates):.3f} +- {statistics.stdev(rates):.3f}"
                      if len(rates) > 1 else "-")
            print(f"| {label} | {tier} | {', '.join(f'{a}/{b}' for a, b in per)} | {k}/{n} | "
                  f"{k / n:.3f} | {lo:.3f}-{hi:.3f} | {spread} |")
        print(f"<!-- {label}: " + "; ".join(_sampler(d) for d in loaded) + " -->")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
