"""RAPL powercap discovery and reading, on fixture trees copied from tests/fixtures/sysfs/rapl.

Each case holds the nested /sys/devices/virtual/powercap tree and the flat
/sys/class/powercap symlinks to it, as the kernel lays them out. Values are the power-sensor
doc's samples (energy_uj 10359908363, max_energy_range_uj 262143328850 or 65532610987, zone
name package-0-die-1) plus made-up counters for the other zones. Trees are copied to tmp_path
so tests can advance, corrupt or delete counters.
"""

from __future__ import annotations

import builtins
import os
import shutil
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import (
    DEFAULT_MAX_GAP_NS,
    EnergyCounter,
    PowerSource,
    counter_delta,
    read_source,
)
from edgeagent.meter.sources import rapl
from edgeagent.meter.sources.family import SCOPES, Discovery, Unavailable

FIXTURES = paths.FIXTURES / "sysfs" / "rapl"
NESTED = Path("sys/devices/virtual/powercap")
S = 1_000_000_000  # ns per second

R262 = 262143328850  # max_energy_range_uj samples from the doc
R65 = 65532610987

# name -> (zone dir below NESTED, energy_uj, max_energy_range_uj, scope)
LAPTOP = {
    "rapl:package-0": ("intel-rapl/intel-rapl:0", 10359908363, R262, "cpu-package"),
    "rapl:package-0/core": ("intel-rapl/intel-rapl:0/intel-rapl:0:0", 4231234567, R262, "cpu-core"),
    "rapl:package-0/uncore": ("intel-rapl/intel-rapl:0/intel-rapl:0:1", 187654321, R262, "gpu"),
    "rapl:psys": ("intel-rapl/intel-rapl:1", 21987654321, R262, "psys"),
}
SERVER = {
    "rapl:package-0": ("intel-rapl/intel-rapl:0", 51234567890, R262, "cpu-package"),
    "rapl:package-0/dram": ("intel-rapl/intel-rapl:0/intel-rapl:0:0", 7654321098, R65, "dram"),
    "rapl:package-1": ("intel-rapl/intel-rapl:1", 49876543210, R262, "cpu-package"),
    "rapl:package-1/dram": ("intel-rapl/intel-rapl:1/intel-rapl:1:0", 7123456789, R65, "dram"),
}
MULTIDIE = {
    "rapl:package-0-die-0": ("intel-rapl/intel-rapl:0", 9876543210, R65, "cpu-package"),
    "rapl:package-0-die-1": ("intel-rapl/intel-rapl:1", 10359908363, R65, "cpu-package"),
    "rapl:dram": ("intel-rapl/intel-rapl:a", 3456789012, R65, "dram"),
}
CASES = {"laptop": LAPTOP, "server": SERVER, "multidie": MULTIDIE}


def _tree(tmp_path: Path, case: str) -> Path:
    root = tmp_path / case
    shutil.copytree(FIXTURES / case, root, symlinks=True)  # keep the relative links
    return root.resolve()


def _by_name(d: Discovery) -> dict[str, rapl.RaplCounter]:
    return {s.name: s for s in d.sources if isinstance(s, rapl.RaplCounter)}


def _deny_open(monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """Make files ending in suffix root-only, as energy_uj is since CVE-2020-8694.

    Tests run as root, so chmod would not stop the read; the kernel's EACCES is stood in
    for at open().
    """
    real_open = builtins.open

    def fake_open(file, *args, **kwargs):
        if str(file).endswith(suffix):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    real_os_open = os.open

    def fake_os_open(file, *args, **kwargs):  # the sampler's reads hold descriptors
        if str(file).endswith(suffix):
            raise PermissionError(13, "Permission denied", str(file))
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)


@pytest.mark.parametrize("case", sorted(CASES))
def test_discovers_every_zone_once_with_names_scopes_and_paths(tmp_path: Path, case: str) -> None:
    root = _tree(tmp_path, case)
    d = rapl.discover(root)
    expected = CASES[case]
    assert [s.name for s in d.sources] == list(expected)
    assert d.unavailable == ()
    for s in d.sources:
        rel, _, max_uj, scope = expected[s.name]
        assert isinstance(s, EnergyCounter) and not isinstance(s, PowerSource)
        assert s.scope == scope and s.scope in SCOPES
        assert s.info.name == s.name and s.info.family == "rapl"
        assert (s.info.unit, s.info.kind) == ("J", "counter")
        # Found through the flat links too, but read from the one real directory.
        assert s.info.path == str(root / NESTED / rel / "energy_uj")
        assert s.wrap_joules == max_uj / 1e6


@pytest.mark.parametrize("case", sorted(CASES))
def test_read_joules_is_energy_uj_over_1e6(tmp_path: Path, case: str) -> None:
    d = rapl.discover(_tree(tmp_path, case))
    for s in d.sources:
        assert s.read_joules() == CASES[case][s.name][1] / 1e6


def test_zone_names_rails_and_parents(tmp_path: Path) -> None:
    sources = _by_name(rapl.discover(_tree(tmp_path, "laptop")))
    core = sources["rapl:package-0/core"]
    assert (core.info.rail, core.zone, core.domain, core.parent) == (
        "core",
        "intel-rapl:0:0",
        "core",
        "rapl:package-0",
    )
    pkg = sources["rapl:package-0"]
    assert (pkg.info.rail, pkg.zone, pkg.domain, pkg.parent) == (
        "package-0",
        "intel-rapl:0",
        "package",
        None,
    )


def test_hex_zone_index_and_multi_die_names(tmp_path: Path) -> None:
    sources = _by_name(rapl.discover(_tree(tmp_path, "multidie")))
    # "intel-rapl:a" is zone 10: it sorts after zone 1 and is top-level, not a child.
    assert list(sources) == ["rapl:package-0-die-0", "rapl:package-0-die-1", "rapl:dram"]
    dram = sources["rapl:dram"]
    assert (dram.zone, dram.parent, dram.domain) == ("intel-rapl:a", None, "dram")
    die1 = sources["rapl:package-0-die-1"]
    assert (die1.info.rail, die1.domain, die1.scope) == (
        "package-0-die-1",
        "package",
        "cpu-package",
    )


def test_wraparound_over_an_interval(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    pkg = _by_name(rapl.discover(root))["rapl:package-0"]
    prev = pkg.read_joules()
    # The counter passed max_energy_range_uj and restarted: the new value is smaller.
    (root / NESTED / "intel-rapl/intel-rapl:0/energy_uj").write_text("1234567\n")
    cur = pkg.read_joules()
    assert (prev, cur) == (10359908363 / 1e6, 1234567 / 1e6)
    joules, reason = counter_delta([(0, prev), (2 * S, cur)], 0, 2 * S, pkg.wrap_joules, 3 * S)
    assert reason is None
    assert joules == (1234567 + R262 - 10359908363) / 1e6


def test_counter_advancing_without_wrap(tmp_path: Path) -> None:
    root = _tree(tmp_path, "server")
    dram = _by_name(rapl.discover(root))["rapl:package-1/dram"]
    prev = dram.read_joules()
    (root / NESTED / "intel-rapl/intel-rapl:1/intel-rapl:1:0/energy_uj").write_text("7125456789\n")
    cur = dram.read_joules()
    joules, reason = counter_delta(
        [(0, prev), (S, cur)], 0, S, dram.wrap_joules, DEFAULT_MAX_GAP_NS
    )
    assert reason is None
    assert joules == (7125456789 - 7123456789) / 1e6


def test_permission_denied_is_unavailable_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path, "laptop")
    _deny_open(monkeypatch, "energy_uj")
    d = rapl.discover(root)
    assert d.sources == ()
    # One entry per zone that would have been read; the mmio copy of package-0 is the same
    # zone, so it does not add a second entry.
    assert d.unavailable == tuple(
        Unavailable("rapl", name, "permission denied", rapl.PERMISSION_FIX) for name in LAPTOP
    )
    assert rapl.PERMISSION_FIX.startswith(
        "sudo chmod a+r /sys/class/powercap/intel-rapl:*/energy_uj"
    )


def test_permission_revoked_after_discovery_reads_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = rapl.discover(_tree(tmp_path, "laptop")).sources
    _deny_open(monkeypatch, "energy_uj")
    assert [s.read_joules() for s in sources] == [None] * len(LAPTOP)


def test_zone_deleted_after_discovery_reads_none(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    sources = _by_name(rapl.discover(root))
    shutil.rmtree(root / NESTED / "intel-rapl/intel-rapl:0/intel-rapl:0:0")
    core = sources["rapl:package-0/core"]
    assert core.read_joules() is None
    assert read_source(core) is None
    assert sources["rapl:package-0"].read_joules() == 10359908363 / 1e6


def test_garbage_counter_reads_none(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    psys = _by_name(rapl.discover(root))["rapl:psys"]
    (root / NESTED / "intel-rapl/intel-rapl:1/energy_uj").write_text("")
    assert psys.read_joules() is None


def test_mmio_copy_of_the_package_is_not_a_second_source(tmp_path: Path) -> None:
    sources = _by_name(rapl.discover(_tree(tmp_path, "laptop")))
    assert [n for n in sources if n.startswith("rapl:package-0")] == [
        "rapl:package-0",
        "rapl:package-0/core",
        "rapl:package-0/uncore",
    ]
    pkg = sources["rapl:package-0"]
    assert pkg.zone == "intel-rapl:0"  # the MSR zone, not intel-rapl-mmio:0
    assert "also exposed as intel-rapl-mmio:0" in (pkg.info.note or "")


def test_mmio_copy_stands_in_when_the_msr_zone_is_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path, "laptop")
    _deny_open(monkeypatch, "/intel-rapl:0/energy_uj")
    d = rapl.discover(root)
    pkg = _by_name(d)["rapl:package-0"]
    assert pkg.zone == "intel-rapl-mmio:0"
    assert pkg.info.path == str(root / NESTED / "intel-rapl-mmio/intel-rapl-mmio:0/energy_uj")
    assert pkg.read_joules() == 10359912345 / 1e6
    assert "read via intel-rapl-mmio:0: the intel-rapl copy is permission denied" in (
        pkg.info.note or ""
    )
    assert d.unavailable == ()
    assert [s.name for s in d.sources] == [
        "rapl:package-0/core",
        "rapl:package-0/uncore",
        "rapl:psys",
        "rapl:package-0",
    ]


def test_nesting_notes(tmp_path: Path) -> None:
    sources = _by_name(rapl.discover(_tree(tmp_path, "laptop")))
    assert sources["rapl:package-0/core"].info.note == "inside rapl:package-0; never add to it"
    assert sources["rapl:package-0/uncore"].info.note == "inside rapl:package-0; never add to it"
    assert (sources["rapl:package-0"].info.note or "").startswith(
        "inside rapl:psys; never add to it"
    )
    assert "never add them to it" in (sources["rapl:psys"].info.note or "")
    server = _by_name(rapl.discover(_tree(tmp_path, "server")))
    assert server["rapl:package-0"].info.note is None
    assert "counted apart" in (server["rapl:package-0/dram"].info.note or "")


def test_primary_sources_laptop_is_psys_alone(tmp_path: Path) -> None:
    d = rapl.discover(_tree(tmp_path, "laptop"))
    assert [s.name for s in rapl.primary_sources(d)] == ["rapl:psys"]


def test_primary_sources_without_psys_never_sums_core_or_uncore(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    shutil.rmtree(root / NESTED / "intel-rapl/intel-rapl:1")
    (root / "sys/class/powercap/intel-rapl:1").unlink()
    d = rapl.discover(root)
    primary = rapl.primary_sources(d)
    assert [s.name for s in primary] == ["rapl:package-0"]
    total = sum(s.read_joules() or 0.0 for s in primary)
    assert total == 10359908363 / 1e6  # not + core + uncore
    assert _by_name(d)["rapl:package-0"].info.note == (
        "also exposed as intel-rapl-mmio:0, not read twice"
    )


def test_primary_sources_server_packages_plus_dram(tmp_path: Path) -> None:
    d = rapl.discover(_tree(tmp_path, "server"))
    assert [s.name for s in rapl.primary_sources(d)] == [
        "rapl:package-0",
        "rapl:package-1",
        "rapl:package-0/dram",
        "rapl:package-1/dram",
    ]
    cpu_only = rapl.primary_sources(d, include_dram=False)
    assert [s.name for s in cpu_only] == ["rapl:package-0", "rapl:package-1"]


def test_primary_sources_multi_die_with_top_level_dram(tmp_path: Path) -> None:
    d = rapl.discover(_tree(tmp_path, "multidie"))
    assert [s.name for s in rapl.primary_sources(d)] == [
        "rapl:package-0-die-0",
        "rapl:package-0-die-1",
        "rapl:dram",
    ]


def test_nested_tree_alone_is_enough(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    shutil.rmtree(root / "sys/class/powercap")
    assert [s.name for s in rapl.discover(root).sources] == list(LAPTOP)


def test_flat_dirs_without_links_are_deduplicated_by_zone(tmp_path: Path) -> None:
    # A tree copied with its links followed: every zone appears both flat and nested
    # (inside its parent's copy) as separate real directories.
    src = _tree(tmp_path, "laptop")
    root = tmp_path / "flat"
    shutil.copytree(
        src / "sys/class/powercap",
        root / "sys/class/powercap",
        symlinks=False,
        ignore=shutil.ignore_patterns("subsystem"),  # the link back to the class: a loop
    )
    d = rapl.discover(root)
    assert [s.name for s in d.sources] == list(LAPTOP)
    assert [s.read_joules() for s in d.sources] == [v[1] / 1e6 for v in LAPTOP.values()]


def test_enabled_zero_still_counts(tmp_path: Path) -> None:
    # core, uncore and psys have enabled=0 in the fixture (their power limit is off), which
    # does not stop the energy counter.
    root = _tree(tmp_path, "laptop")
    assert (root / NESTED / "intel-rapl/intel-rapl:0/intel-rapl:0:0/enabled").read_text() == "0\n"
    sources = _by_name(rapl.discover(root))
    assert sources["rapl:package-0/core"].read_joules() == 4231234567 / 1e6


def test_unreadable_range_means_no_wrap(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    (root / NESTED / "intel-rapl/intel-rapl:1/max_energy_range_uj").unlink()
    psys = _by_name(rapl.discover(root))["rapl:psys"]
    assert psys.wrap_joules is None
    joules, reason = counter_delta([(0, 2.0), (S, 1.0)], 0, S, psys.wrap_joules, 2 * S)
    assert joules is None and reason == "energy counter went backwards (reset)"


def test_unknown_domain_is_unavailable(tmp_path: Path) -> None:
    root = _tree(tmp_path, "laptop")
    (root / NESTED / "intel-rapl/intel-rapl:1/name").write_text("platform\n")
    d = rapl.discover(root)
    assert Unavailable("rapl", "rapl:platform", "unknown domain 'platform'") in d.unavailable
    assert "rapl:platform" not in _by_name(d)


@pytest.mark.parametrize("layout", ["empty", "powercap-without-rapl"])
def test_no_rapl_is_not_present(tmp_path: Path, layout: str) -> None:
    if layout == "powercap-without-rapl":
        (tmp_path / "sys/class/powercap/dtpm").mkdir(parents=True)
    d = rapl.discover(tmp_path)
    assert d == Discovery(
        sources=(),
        unavailable=(
            Unavailable(
                family="rapl",
                name="rapl",
                reason="not present (no /sys/class/powercap intel-rapl zones; most VMs have none)",
            ),
        ),
    )


def _add_top_zone(root: Path, index: int, name: str, energy_uj: int) -> None:
    """A top-level zone in the nested tree plus its flat class link, as the kernel adds it."""
    zone = root / NESTED / f"intel-rapl/intel-rapl:{index:x}"
    zone.mkdir()
    (zone / "name").write_text(f"{name}\n")
    (zone / "energy_uj").write_text(f"{energy_uj}\n")
    (zone / "max_energy_range_uj").write_text(f"{R262}\n")
    (zone / "enabled").write_text("0\n")
    link = root / f"sys/class/powercap/intel-rapl:{index:x}"
    link.symlink_to(f"../../devices/virtual/powercap/intel-rapl/intel-rapl:{index:x}")


def test_two_socket_psys_zones_are_both_the_total(tmp_path: Path) -> None:
    # intel_rapl_common.c rapl_init_domains() names the platform domain of every package
    # after the first "psys-%d"; each is a top-level zone (parent NULL) for its socket.
    root = _tree(tmp_path, "server")
    _add_top_zone(root, 2, "psys", 81234567890)
    _add_top_zone(root, 3, "psys-1", 79876543210)
    d = rapl.discover(root)
    assert d.unavailable == ()
    psys1 = _by_name(d)["rapl:psys-1"]
    assert (psys1.domain, psys1.scope, psys1.info.rail) == ("psys", "psys", "psys-1")
    assert psys1.read_joules() == 79876543210 / 1e6
    # One socket's psys alone would be half the machine.
    assert [s.name for s in rapl.primary_sources(d)] == ["rapl:psys", "rapl:psys-1"]


def test_symlink_loop_in_the_class_dir_is_skipped(tmp_path: Path) -> None:
    # Python < 3.13 raises RuntimeError (not OSError) resolving a symlink loop; one such
    # entry must not fail the discovery of every zone.
    root = _tree(tmp_path, "laptop")
    loop = root / "sys/class/powercap/intel-rapl:5"
    loop.symlink_to("intel-rapl:5")
    d = rapl.discover(root)
    assert [s.name for s in d.sources] == list(LAPTOP)
