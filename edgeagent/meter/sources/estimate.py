"""A labelled estimate for machines with no power sensor: CPU utilisation x declared TDP.

Only used when the user declares a TDP (--power-estimate-tdp): without one there is no
number at all, because an invented TDP would look like a measurement. The model is

    P = TDP x (idle_fraction + (1 - idle_fraction) x utilisation)

so an idle CPU is charged idle_fraction x TDP (a CPU never draws zero) and a fully busy one
its TDP. The power-sensors doc gives no idle fraction, so the default 0.1 is this module's
own assumption. Every reading says "estimated" in its scope.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import psutil

from edgeagent.meter.sources.family import Discovery, SourceInfo, Unavailable

FAMILY = "estimate"
NAME = "estimate:cpu-tdp"
DEFAULT_IDLE_FRACTION = 0.1  # not from the doc (it gives none): an assumed idle floor
NO_TDP_FIX = "pass --power-estimate-tdp WATTS to allow an estimate"


@dataclass(frozen=True)
class EstimateSource:
    """System CPU utilisation (psutil) x declared TDP, in watts: never a measurement."""

    tdp_w: float
    idle_fraction: float = DEFAULT_IDLE_FRACTION

    def __post_init__(self) -> None:
        if not (math.isfinite(self.tdp_w) and self.tdp_w > 0):
            raise ValueError(f"TDP must be a positive number of watts, got {self.tdp_w!r}")
        if not (0.0 <= self.idle_fraction <= 1.0):
            raise ValueError(f"idle_fraction must be in [0, 1], got {self.idle_fraction!r}")
        # cpu_percent(interval=None) measures since its previous call, and the first call
        # has nothing to compare with (it returns 0.0): prime it so the first read is real.
        psutil.cpu_percent(interval=None)

    @property
    def info(self) -> SourceInfo:
        return SourceInfo(
            family=FAMILY,
            name=NAME,
            scope="estimated",
            rail=None,
            unit="W",
            kind="power",
            path="psutil.cpu_percent",
            note=f"estimate: CPU utilisation x declared TDP {self.tdp_w:g} W, not a measurement",
        )

    @property
    def name(self) -> str:
        return NAME

    @property
    def scope(self) -> str:
        return "estimated"

    def read_watts(self) -> float | None:
        try:
            percent = float(psutil.cpu_percent(interval=None))
        except Exception:  # noqa: BLE001 - a failed read is a gap, never a stopped sampler
            return None
        if not math.isfinite(percent):
            return None
        utilisation = min(max(percent / 100.0, 0.0), 1.0)
        return self.tdp_w * (self.idle_fraction + (1.0 - self.idle_fraction) * utilisation)


def discover(root: Path = Path("/"), tdp_w: float | None = None) -> Discovery:
    """The estimate when a TDP is declared; otherwise why there is none.

    root is unused (nothing is read from the filesystem) and kept for the family contract.
    Raises ValueError for a TDP that is not a positive number.
    """
    if tdp_w is None:
        return Discovery(unavailable=(Unavailable(FAMILY, NAME, "no TDP declared", NO_TDP_FIX),))
    return Discovery(sources=(EstimateSource(float(tdp_w)),))
