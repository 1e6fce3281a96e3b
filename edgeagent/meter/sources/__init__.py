"""Every power-source family, discovered together, and the choice of what counts as the total.

The total is the most inclusive *measured* reading the device offers, never a sum of nested
domains: a Jetson module input (or its rail sum), a Raspberry Pi PMIC, Apple's combined power,
a discharging battery (the whole system), RAPL psys or packages (+ DRAM), a GPU, a generic
hwmon sensor; an estimate only when the user declared a TDP. Everything else is still sampled
for the record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import apple, battery, estimate, hwmon, jetson, nvml, rapl, rpi
from .battery import MIN_INTERVAL_S as BATTERY_MIN_INTERVAL_S
from .family import Discovery, MeteredSource, SourceInfo, Unavailable
from .jetson import GPU_OF_NAMES, board_info
from .reading import KEPT, read_str

__all__ = [
    "BATTERY_MIN_INTERVAL_S", "Discovery", "GPU_OF_NAMES", "KEPT", "MeteredSource",
    "SourceInfo", "Unavailable", "Total", "board_info", "discover_all", "choose_total",
    "describe", "read_str",
]

_FAMILIES: tuple[tuple[str, Callable[..., Discovery]], ...] = (
    ("jetson", jetson.discover),
    ("rpi", rpi.discover),
    ("apple", apple.discover),
    ("battery", battery.discover),
    ("rapl", rapl.discover),
    ("nvml", nvml.discover),
    ("hwmon", hwmon.discover),
)


@dataclass(frozen=True)
class Total:
    """The sources whose energies add up to the device total (several only for RAPL)."""

    sources: tuple[MeteredSource, ...]
    scope: str
    label: str  # e.g. "rapl:package-0 + rapl:package-0/dram"


def discover_all(root: Path = Path("/"), *, tdp_w: float | None = None) -> Discovery:
    """Run every family's discovery below root; a family that fails is listed, not fatal."""
    sources: list[MeteredSource] = []
    unavailable: list[Unavailable] = []
    families = list(_FAMILIES)
    families.append(("estimate", lambda r: estimate.discover(r, tdp_w=tdp_w)))
    for family, discover in families:
        try:
            found = discover(root)
        except Exception as exc:  # noqa: BLE001 - one odd driver must not stop a run
            unavailable.append(Unavailable(family, family, f"discovery failed: {exc}"))
            continue
        sources.extend(found.sources)
        unavailable.extend(found.unavailable)
    return Discovery(tuple(sources), tuple(unavailable))


def _family(discovery: Discovery, family: str) -> Discovery:
    return Discovery(
        tuple(s for s in discovery.sources if s.info.family == family),
        tuple(u for u in discovery.unavailable if u.family == family),
    )


def _not_discharging(discovery: Discovery, source: MeteredSource) -> bool:
    return any(u.name == source.name for u in discovery.unavailable)


def choose_total(discovery: Discovery) -> Total | None:
    """The device total, by inclusiveness; None when nothing measured (or declared) exists."""
    def single(source: MeteredSource | None) -> Total | None:
        return Total((source,), source.scope, source.name) if source is not None else None

    for pick in (
        lambda: single(jetson.primary_source(_family(discovery, "jetson"))),
        lambda: single(next(iter(_family(discovery, "rpi").sources), None)),
        lambda: single(next(iter(_family(discovery, "apple").sources), None)),
        lambda: _battery(discovery),
        lambda: _rapl(discovery),
        lambda: single(next(iter(_family(discovery, "nvml").sources), None)),
        lambda: single(_hwmon_total(discovery)),
        lambda: single(next(iter(_family(discovery, "estimate").sources), None)),
    ):
        total = pick()
        if total is not None:
            return total
    return None


def _battery(discovery: Discovery) -> Total | None:
    source = battery.primary_source(_family(discovery, "battery"))
    # a battery on the charger reads nothing: listed as unavailable, not used as the total
    if source is None or _not_discharging(discovery, source):
        return None
    return Total((source,), source.scope, source.name)


# hwmon has no device total: the widest scope stands in, in this order. On a desktop with an
# amdgpu card and amd_energy, the socket counter measures the CPU llama.cpp runs on, where
# the first sensor found (the card) would leave the model's work out of the "total".
_HWMON_SCOPE_RANK = ("board", "psys", "soc", "cpu-package", "gpu", "dram", "cpu-core")


def _hwmon_total(discovery: Discovery) -> MeteredSource | None:
    sources = _family(discovery, "hwmon").sources

    def rank(s: MeteredSource) -> int:
        scope = s.scope
        return _HWMON_SCOPE_RANK.index(scope) if scope in _HWMON_SCOPE_RANK else len(
            _HWMON_SCOPE_RANK)

    return min(sources, key=rank, default=None)  # min keeps discovery order among equals


def _rapl(discovery: Discovery) -> Total | None:
    parts: Sequence[MeteredSource] = rapl.primary_sources(_family(discovery, "rapl"))
    if not parts:
        return None
    scope = "psys" if any(p.scope == "psys" for p in parts) else "cpu-package"
    return Total(tuple(parts), scope, " + ".join(p.name for p in parts))


def describe(discovery: Discovery, total: Total | None) -> dict[str, Any]:
    """JSON-ready provenance: every source, every unavailable one with its reason, the total."""
    return {
        "sources": [dataclasses.asdict(s.info) for s in discovery.sources],
        "unavailable": [dataclasses.asdict(u) for u in discovery.unavailable],
        "total": None if total is None else {
            "label": total.label, "scope": total.scope,
            "sources": [s.name for s in total.sources],
            "estimated": total.scope == "estimated",
        },
    }
