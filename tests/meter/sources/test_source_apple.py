"""Apple Silicon powermetrics source: the text parser and discovery through a fake runner.

Fixtures: powermetrics_macos12_m1.txt is CodeCarbon's public M1 / macOS 12 capture (first
sample whole, second trimmed to its cluster and power lines); powermetrics_macos13_m2.txt is
a public M2 capture (Mac14,2) in the macOS 13+ layout; powermetrics_macos13_gpu_sampler.txt
follows that layout with the gpu_power sampler's "GPU usage" block added, as the doc
describes it, whose second "GPU Power:" line must not win.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import paths
import pytest

from edgeagent.meter.energy import PowerSource, read_source
from edgeagent.meter.sources import apple
from edgeagent.meter.sources.apple import PowermetricsReading, parse_powermetrics
from edgeagent.meter.sources.family import SCOPES, Unavailable

FIXTURES = paths.FIXTURES / "commands"
MACOS12 = (FIXTURES / "powermetrics_macos12_m1.txt").read_text()
MACOS13 = (FIXTURES / "powermetrics_macos13_m2.txt").read_text()
MACOS13_GPU = (FIXTURES / "powermetrics_macos13_gpu_sampler.txt").read_text()
ARGV = ("sudo", "-n", "powermetrics", "--samplers", "cpu_power", "-i", "250", "-n", "1")


class FakeRun:
    """Stands in for running a command: returns scripted stdout or raises."""

    def __init__(self, *outputs: str | BaseException) -> None:
        self.outputs = list(outputs)
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, argv: Sequence[str]) -> str:
        self.calls.append(tuple(argv))
        out = self.outputs[0] if len(self.outputs) == 1 else self.outputs.pop(0)
        if isinstance(out, BaseException):
            raise out
        return out


def _mac_root(tmp_path: Path) -> Path:
    (tmp_path / "usr/bin").mkdir(parents=True, exist_ok=True)
    (tmp_path / "usr/bin/powermetrics").write_text("")
    return tmp_path


# --- parser ---------------------------------------------------------------------------


def test_parse_macos13_takes_the_first_sample() -> None:
    assert parse_powermetrics(MACOS13) == PowermetricsReading(
        cpu_w=0.823, gpu_w=0.026, ane_w=0.323, combined_w=1.172, package_w=None
    )


def test_parse_macos12_reads_package_power() -> None:
    # E-Cluster, P-Cluster and DRAM lines are not CPU/GPU/ANE/Package lines.
    assert parse_powermetrics(MACOS12) == PowermetricsReading(
        cpu_w=0.947, gpu_w=0.153, ane_w=0.0, combined_w=None, package_w=1.473
    )


def test_parse_takes_the_first_gpu_line_not_the_gpu_usage_block() -> None:
    reading = parse_powermetrics(MACOS13_GPU)
    assert reading.gpu_w == 0.2  # the GPU usage block says 198 mW
    assert (reading.cpu_w, reading.ane_w, reading.combined_w) == (1.0, 0.003, 1.203)


def test_parse_accepts_watts_and_text_without_a_header() -> None:
    text = (
        "ANE Power: 0.15W\nCPU Power: 5.0 W\nGPU Power: 2.0W\nDRAM Power: 0.8W\n"
        "Combined Power (CPU + GPU + ANE): 7.15W\n"
    )
    assert parse_powermetrics(text) == PowermetricsReading(
        cpu_w=5.0, gpu_w=2.0, ane_w=0.15, combined_w=7.15
    )


def test_parse_of_unrelated_text_has_no_readings() -> None:
    intel = "Intel energy model derived package power (CPUs+GT+SA): 2.48W\n"
    assert parse_powermetrics(intel) == PowermetricsReading()
    assert parse_powermetrics("") == PowermetricsReading()


# --- discovery ------------------------------------------------------------------------


def test_discover_macos13_combined_first_then_cpu_and_gpu(tmp_path: Path) -> None:
    run = FakeRun(MACOS13)
    found = apple.discover(_mac_root(tmp_path), run=run)

    assert found.unavailable == ()
    assert [(s.name, s.scope) for s in found.sources] == [
        ("apple:combined", "board"),
        ("apple:cpu", "cpu-package"),
        ("apple:gpu", "gpu"),
    ]
    assert all(s.scope in SCOPES and isinstance(s, PowerSource) for s in found.sources)
    combined = found.sources[0].info
    assert (combined.family, combined.unit, combined.kind) == ("apple", "W", "power")
    assert combined.rail == "Combined Power (CPU + GPU + ANE)"
    assert combined.path == " ".join(ARGV)
    assert run.calls == [ARGV]  # the probe

    assert [s.read_watts() for s in found.sources] == [1.172, 0.823, 0.026]


def test_one_powermetrics_run_per_sampler_tick(tmp_path: Path) -> None:
    second = MACOS13.replace(
        "Combined Power (CPU + GPU + ANE): 1172 mW", "Combined Power (CPU + GPU + ANE): 2 W"
    )
    run = FakeRun(MACOS13, MACOS13, second)
    combined, cpu, gpu = apple.discover(_mac_root(tmp_path), run=run).sources

    # A tick reads every source in order: only the first one runs powermetrics.
    assert [read_source(s) for s in (combined, cpu, gpu)] == [1.172, 0.823, 0.026]
    assert len(run.calls) == 2
    # The next tick: combined has seen this sample already, so it runs powermetrics again.
    assert combined.read_watts() == 2.0
    assert cpu.read_watts() == 0.823
    assert len(run.calls) == 3


def test_discover_macos12_uses_package_power_as_the_total(tmp_path: Path) -> None:
    found = apple.discover(_mac_root(tmp_path), run=FakeRun(MACOS12))
    assert [s.name for s in found.sources] == ["apple:package", "apple:cpu", "apple:gpu"]
    assert found.sources[0].scope == "board"
    assert [s.read_watts() for s in found.sources] == [1.473, 0.947, 0.153]


def test_interval_is_passed_to_powermetrics(tmp_path: Path) -> None:
    run = FakeRun(MACOS13)
    apple.discover(_mac_root(tmp_path), run=run, interval_ms=1000)
    assert run.calls[0][5:7] == ("-i", "1000")
    with pytest.raises(ValueError):
        apple.discover(_mac_root(tmp_path), run=run, interval_ms=0)


def test_not_macos_is_not_present_and_runs_nothing(tmp_path: Path) -> None:
    run = FakeRun(MACOS13)
    found = apple.discover(tmp_path, run=run)
    assert found.sources == ()
    assert found.unavailable == (Unavailable("apple", "apple:powermetrics", "not present"),)
    assert run.calls == []


def test_sudo_refused_says_how_to_allow_it(tmp_path: Path) -> None:
    error = subprocess.CalledProcessError(
        1, list(ARGV), output="", stderr="sudo: a password is required\n"
    )
    found = apple.discover(_mac_root(tmp_path), run=FakeRun(error))
    assert found.sources == ()
    assert found.unavailable == (
        Unavailable(
            "apple",
            "apple:powermetrics",
            "sudo refused: sudo: a password is required",
            "run with sudo, or add a sudoers rule for powermetrics",
        ),
    )


def test_powermetrics_failing_otherwise_gives_its_message(tmp_path: Path) -> None:
    error = subprocess.CalledProcessError(
        64, list(ARGV), output="", stderr="powermetrics: unrecognized sampler\n"
    )
    (u,) = apple.discover(_mac_root(tmp_path), run=FakeRun(error)).unavailable
    assert u.reason == "powermetrics failed (exit 64): powermetrics: unrecognized sampler"
    assert u.fix is None


def test_missing_sudo_is_not_present(tmp_path: Path) -> None:
    (u,) = apple.discover(_mac_root(tmp_path), run=FakeRun(FileNotFoundError("sudo"))).unavailable
    assert u.reason == "not present"


def test_intel_mac_output_has_no_apple_silicon_power(tmp_path: Path) -> None:
    intel = (
        "*** Sampled system activity (x) ***\n"
        "Intel energy model derived package power (CPUs+GT+SA): 2.48W\n"
    )
    found = apple.discover(_mac_root(tmp_path), run=FakeRun(intel))
    assert found.sources == ()
    (u,) = found.unavailable
    assert "Apple Silicon only" in u.reason


# --- failures after discovery ---------------------------------------------------------


def test_powermetrics_failing_mid_run_reads_none_with_one_attempt_per_tick(tmp_path: Path) -> None:
    error = subprocess.CalledProcessError(1, list(ARGV), stderr="sudo: a password is required")
    run = FakeRun(MACOS13, MACOS13, error, "garbage", MACOS13)
    combined, cpu, gpu = apple.discover(_mac_root(tmp_path), run=run).sources

    assert [s.read_watts() for s in (combined, cpu, gpu)] == [1.172, 0.823, 0.026]
    # sudo timestamp expired mid-run: the whole tick is a gap, after a single attempt.
    assert [s.read_watts() for s in (combined, cpu, gpu)] == [None, None, None]
    assert len(run.calls) == 3
    # Output without power lines is a gap too.
    assert [read_source(s) for s in (combined, cpu, gpu)] == [None, None, None]
    # And it recovers.
    assert [s.read_watts() for s in (combined, cpu, gpu)] == [1.172, 0.823, 0.026]
