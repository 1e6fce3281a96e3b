"""RAPL energy counters via Linux powercap (Intel, and AMD Zen since kernel 5.8).

The kernel exposes each RAPL domain as a powercap zone: a nested tree under
/sys/devices/virtual/powercap/intel-rapl/ with flat symlinks to every zone in
/sys/class/powercap/. Both shapes are scanned and each zone is kept once. A zone's `energy_uj`
is a cumulative µJ counter that restarts at 0 past `max_energy_range_uj`.

Domains overlap (psys ⊇ package ⊇ core/uncore), so every source says in its note what it
sits inside, and `primary_sources` picks a set that can be summed without double counting.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from edgeagent.meter.sources.family import Described, Discovery, SourceInfo, Unavailable
from edgeagent.meter.sources.reading import KEPT

FAMILY = "rapl"

# The MSR interface comes first: it carries the whole domain tree, and intel-rapl-mmio only
# repeats the package zone through the processor's PCI thermal device.
_CONTROL_TYPES = ("intel-rapl", "intel-rapl-mmio")

# The kernel names zones "%s:%x": the index is hex, so the 11th zone is "intel-rapl:a".
_ZONE_RE = re.compile(r"^(intel-rapl(?:-mmio)?)((?::[0-9a-f]+)+)$")

# Domain (from the zone's `name`) -> scope. uncore is PP1: on client parts the integrated
# graphics plane (the Intel SDM's "uncore device"), which is neither the cores nor the
# whole package, so "gpu" says what it measures better than "cpu-core" would; the note
# still says it lies inside the package.
_SCOPE = {
    "package": "cpu-package",
    "core": "cpu-core",
    "uncore": "gpu",
    "dram": "dram",
    "psys": "psys",
}

NOT_PRESENT = Unavailable(
    family=FAMILY,
    name=FAMILY,
    reason="not present (no /sys/class/powercap intel-rapl zones; most VMs have none)",
)

# The glob also matches subzones (intel-rapl:0:0), since "*" matches the colon.
PERMISSION_FIX = (
    "sudo chmod a+r /sys/class/powercap/intel-rapl:*/energy_uj (until reboot; a udev or "
    "sysfsutils rule makes it last), or run as root. energy_uj is root-only since "
    "CVE-2020-8694; opening it re-opens that power side channel to local users"
)


@dataclass(frozen=True)
class RaplCounter(Described):
    """One RAPL zone's energy counter (an `EnergyCounter`)."""

    info: SourceInfo
    energy_path: Path
    wrap_joules: float | None  # max_energy_range_uj in J; None if the range was unreadable
    zone: str  # the powercap zone, e.g. "intel-rapl:0:1"
    domain: str  # package | core | uncore | dram | psys
    parent: str | None  # name of the source of the enclosing zone, e.g. "rapl:package-0"

    def read_joules(self) -> float | None:
        uj = KEPT.read_int(self.energy_path)  # zone gone, permission revoked, garbage: a gap
        return None if uj is None else uj / 1e6


@dataclass(frozen=True)
class _Zone:
    control: str  # "intel-rapl" | "intel-rapl-mmio"
    index: tuple[int, ...]  # (0,) for intel-rapl:0, (0, 1) for intel-rapl:0:1
    path: Path  # the real directory

    @property
    def id(self) -> str:
        return self.control + "".join(f":{i:x}" for i in self.index)


def discover(root: Path = Path("/")) -> Discovery:
    """Every readable RAPL zone below root as a counter; the rest as Unavailable."""
    zones = _find_zones(root)
    if not zones:
        return Discovery(unavailable=(NOT_PRESENT,))

    names: dict[tuple[str, tuple[int, ...]], str] = {}
    for z in zones:
        try:
            names[(z.control, z.index)] = _read_text(z.path / "name")
        except OSError:
            pass  # reported below, when the zone itself is handled

    sources: dict[str, RaplCounter] = {}
    unavailable: dict[str, Unavailable] = {}
    for z in zones:
        _add_zone(z, names, sources, unavailable)

    # What a zone sits inside matters most, so that note goes first.
    has_psys = any(s.domain == "psys" for s in sources.values())
    out = tuple(_with_note(s, *_nesting_notes(s, has_psys)) for s in sources.values())
    return Discovery(sources=out, unavailable=tuple(unavailable.values()))


def _add_zone(
    z: _Zone,
    names: dict[tuple[str, tuple[int, ...]], str],
    sources: dict[str, RaplCounter],
    unavailable: dict[str, Unavailable],
) -> None:
    """Add one zone to sources as a counter, or to unavailable with why not. Zones come
    sorted MSR interface first, so an mmio copy finds the MSR one already here."""
    zname = names.get((z.control, z.index))
    if zname is None:
        name = f"{FAMILY}:{z.id}"
        unavailable.setdefault(name, Unavailable(FAMILY, name, "zone name unreadable"))
        return
    parent = _parent_name(z, names)
    name = f"{FAMILY}:{zname}" if parent is None else f"{parent}/{zname}"
    is_mmio = z.control == "intel-rapl-mmio"
    if name in sources:
        if is_mmio:
            # The MSR interface already reads this domain: one counter, not two.
            kept = sources[name]
            sources[name] = _with_note(kept, f"also exposed as {z.id}, not read twice")
            return
        name = f"{name}@{z.id}"  # two zones of one name on one interface: keep both
    domain = _domain(zname)
    if domain is None:
        unavailable.setdefault(name, Unavailable(FAMILY, name, f"unknown domain {zname!r}"))
        return
    energy_path = z.path / "energy_uj"
    failure = _probe(energy_path, name)
    if failure is not None:
        unavailable.setdefault(name, failure)
        return
    # The zone's `enabled` file is not consulted: it is the power-limit (PL1) switch, and
    # reads 0 when the limit is off or BIOS-locked, while the energy counter counts on.
    notes: list[str] = []
    if is_mmio:
        # Reached only when the MSR copy is absent or unreadable.
        msr_failure = unavailable.pop(name, None)
        via = f"read via {z.id}"
        notes.insert(
            0, f"{via}: the intel-rapl copy is {msr_failure.reason}" if msr_failure else via
        )
    sources[name] = RaplCounter(
        info=SourceInfo(
            family=FAMILY,
            name=name,
            scope=_SCOPE[domain],
            rail=zname,
            unit="J",
            kind="counter",
            path=str(energy_path),
            note="; ".join(notes) or None,
        ),
        energy_path=energy_path,
        wrap_joules=_wrap_joules(z.path),
        zone=z.id,
        domain=domain,
        parent=parent,
    )


def primary_sources(discovery: Discovery, *, include_dram: bool = True) -> tuple[RaplCounter, ...]:
    """The RAPL counters whose sum is the largest total that counts nothing twice.

    every psys zone where present (each contains its socket's package; a multi-socket
    server has psys, psys-1, ...); otherwise every top-level package
    zone (one per package, or per die on multi-die parts) plus the dram zones. Core and
    uncore are never included: they lie inside their package. DRAM is counted separately
    from the package by RAPL even where powercap lists it as the package's child, so it is
    added wherever it sits; include_dram=False leaves memory out (a CPU-only total).
    """
    zones = [s for s in discovery.sources if isinstance(s, RaplCounter)]
    psys = [z for z in zones if z.domain == "psys"]
    if psys:
        return tuple(psys)
    packages = [z for z in zones if z.domain == "package" and z.parent is None]
    dram = [z for z in zones if z.domain == "dram"] if include_dram else []
    return tuple(packages + dram)


def _find_zones(root: Path) -> list[_Zone]:
    """Zones from the flat class symlinks and the nested device tree, each once."""
    seen_paths: set[Path] = set()
    found: dict[tuple[str, tuple[int, ...]], _Zone] = {}
    for candidate in _candidate_dirs(root):
        m = _ZONE_RE.match(candidate.name)
        if m is None:
            continue
        try:
            real = candidate.resolve()
            if real in seen_paths or not real.is_dir():
                continue
        except (OSError, RuntimeError):
            # RuntimeError: Python before 3.13 raises it for a symlink loop, which one odd
            # entry must not turn into a failed discovery of every zone.
            continue
        seen_paths.add(real)
        index = tuple(int(i, 16) for i in m.group(2)[1:].split(":"))
        # Also keyed by zone id: a tree copied without its links has the same zone twice
        # under different real paths.
        found.setdefault((m.group(1), index), _Zone(m.group(1), index, real))
    return sorted(found.values(), key=lambda z: (_CONTROL_TYPES.index(z.control), z.index))


def _candidate_dirs(root: Path) -> Iterator[Path]:
    class_dir = root / "sys" / "class" / "powercap"
    yield from _listdir(class_dir)
    # The nested tree: control type dirs, then zones inside zones. Only zone-named dirs are
    # entered, so the `subsystem` and `device` links back up the tree are never followed.
    tops = [root / "sys" / "devices" / "virtual" / "powercap" / c for c in _CONTROL_TYPES]
    tops += [class_dir / c for c in _CONTROL_TYPES]
    stack = [t for t in tops if t.is_dir()]
    while stack:
        d = stack.pop()
        for child in _listdir(d):
            if _ZONE_RE.match(child.name) and child.is_dir():
                yield child
                if not child.is_symlink():
                    stack.append(child)


def _listdir(d: Path) -> list[Path]:
    try:
        return sorted(d.iterdir())
    except OSError:
        return []


def _parent_name(z: _Zone, names: dict[tuple[str, tuple[int, ...]], str]) -> str | None:
    """The source name of the zone enclosing z, or None for a top-level zone."""
    if len(z.index) == 1:
        return None
    parent_index = z.index[:-1]
    parent_zname = names.get((z.control, parent_index))
    if parent_zname is None:  # parent unreadable: name it by its zone id
        return f"{FAMILY}:{z.control}" + "".join(f":{i:x}" for i in parent_index)
    grand = _parent_name(_Zone(z.control, parent_index, z.path.parent), names)
    return f"{FAMILY}:{parent_zname}" if grand is None else f"{grand}/{parent_zname}"


def _domain(zname: str) -> str | None:
    # "package-0" and, on multi-die parts, "package-0-die-1" are both package domains.
    if re.fullmatch(r"package-\d+(?:-die-\d+)?", zname):
        return "package"
    # intel_rapl_common.c names the platform domain of every package after the first
    # "psys-%d" (multi-socket TPMI servers): one psys zone per socket.
    if re.fullmatch(r"psys-\d+", zname):
        return "psys"
    return zname if zname in _SCOPE else None


def _probe(energy_path: Path, name: str) -> Unavailable | None:
    """None if energy_uj reads as a counter now; otherwise why not."""
    try:
        _read_int(energy_path)
    except PermissionError:
        return Unavailable(FAMILY, name, "permission denied", PERMISSION_FIX)
    except FileNotFoundError:
        return Unavailable(FAMILY, name, "not present (zone has no energy_uj)")
    except OSError as e:
        return Unavailable(FAMILY, name, f"read failed ({e.strerror or e})")
    except ValueError:
        return Unavailable(FAMILY, name, "read failed (energy_uj is not a number)")
    return None


def _wrap_joules(zone_dir: Path) -> float | None:
    try:
        return _read_int(zone_dir / "max_energy_range_uj") / 1e6
    except (OSError, ValueError):
        # Without the range a wrap cannot be told from a reset; counter_delta then gives
        # null for an interval that wraps instead of a wrong number.
        return None


def _nesting_notes(s: RaplCounter, has_psys: bool) -> list[str]:
    if s.domain == "psys":
        return [
            "platform total (SoC and more): contains the rapl:package-* zones; never add them to it"
        ]
    if s.domain == "dram" and s.parent is not None:
        return [f"listed under {s.parent} but counted apart from it (memory, not package)"]
    if s.parent is not None:
        return [f"inside {s.parent}; never add to it"]
    if s.domain == "package" and has_psys:
        return ["inside rapl:psys; never add to it"]
    return []


def _with_note(s: RaplCounter, *notes: str) -> RaplCounter:
    if not notes:
        return s
    parts = [*notes, s.info.note] if s.info.note else list(notes)
    return dataclasses.replace(s, info=dataclasses.replace(s.info, note="; ".join(parts)))


def _read_text(path: Path) -> str:
    # builtins.open rather than Path.read_text: tests stand in for root-only files by
    # patching open, since they run as root and chmod would not stop them.
    with open(path) as f:
        return f.read().strip()


def _read_int(path: Path) -> int:
    return int(_read_text(path))
