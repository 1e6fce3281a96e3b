"""provenance.json as a frozen record: what a run's device, model, engine, meter and workload
were, as resolved when it started.

Each section keeps the shape its writer records (the device snapshot's, the engine's, the
power discovery's) as a read-only mapping; the values several readers need are named here
once, so no reader walks `prov.get("power") or {}).get("total")` by hand. A key this version
does not name (a workload's own section: replay, accuracy, serve, tool_format, retrieval,
task_tiers, agent; or one a later version adds) is kept under `workload`, never dropped."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

_EMPTY: Mapping[str, Any] = MappingProxyType({})
# the named sections that are mappings (an absent or null one reads as empty)
_SECTIONS = ("device", "model", "power", "sandbox_isolation", "interference", "config")


def _section() -> Any:
    return dataclasses.field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class Provenance:
    edgeagent_version: str | None = None
    device: Mapping[str, Any] = _section()  # meter.device_snapshot, with the engine's additions
    model: Mapping[str, Any] = _section()  # the model file and what the engine reports of it
    power: Mapping[str, Any] = _section()  # sources, unavailable ones, the whole-device total
    power_null_reason: str | None = None
    sandbox_isolation: Mapping[str, Any] = _section()
    seed: int | None = None
    interference: Mapping[str, Any] = _section()
    config: Mapping[str, Any] = _section()  # the run's settings as it started
    workload: Mapping[str, Any] = _section()  # every other top-level key, by its name

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Provenance:
        rest = dict(data or {})
        named: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            if f.name == "workload":
                continue
            value = rest.pop(f.name, None)
            if f.name in _SECTIONS:
                value = MappingProxyType(dict(value)) if isinstance(value, Mapping) else _EMPTY
            named[f.name] = value
        return cls(**named, workload=MappingProxyType(rest))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "workload":
                out.update(value)
            elif f.name in _SECTIONS:
                out[f.name] = dict(value)
            else:
                out[f.name] = value
        return out

    def section(self, name: str) -> Any:
        """A workload's own section (`replay`, `accuracy`, `tool_format`, ...); None where
        the run has none."""
        return self.workload.get(name)

    @property
    def power_total(self) -> Mapping[str, Any]:
        """The whole-device power source the run's energy stands on; empty where none."""
        return self.power.get("total") or _EMPTY

    @property
    def power_sources(self) -> list[Mapping[str, Any]]:
        return list(self.power.get("sources") or [])

    @property
    def model_sha256(self) -> str | None:
        return self.model.get("sha256")

    @property
    def memory_bandwidth(self) -> Mapping[str, Any]:
        """The device's recorded memory bandwidth (`gbs`, how it was found); empty where
        none was measured."""
        return self.device.get("memory_bandwidth") or _EMPTY

    @property
    def task_tiers(self) -> Mapping[str, str] | None:
        return self.section("task_tiers")
