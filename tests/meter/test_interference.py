"""Host interference: /proc/stat's counters, a phase's share, and the verdict's check, through
the CLI beside a controlled busy neighbour, alone, and with the counters unreadable."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import run_cli

from edgeagent.host_busy import own_lineage, sample_host_load
from edgeagent.meter.cpu_load import HostCpuReader, parse_cpu_line, phase_load
from edgeagent.meter.sample import CpuCounters, Sample
from edgeagent.results.interference import (
    INTERFERENCE_THRESHOLD,
    MIN_MODEL_S,
    interference_check,
)

# bounded: a neighbour left behind by a crashed test stops by itself
BUSY = "import time\nend = time.time() + 120\nwhile time.time() < end: pass"
# the bundled smoke replay, 12 turns of up to 1,024 tokens: about 3 s of model time on the
# tiny model alone, over the check's MIN_MODEL_S
RUN = ("replay", "--max-new-tokens", "1024", "--n-ctx", "8192", "--threads", "2")


@contextlib.contextmanager
def busy_neighbours(n: int) -> Iterator[None]:
    procs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _sample(t_s: float, busy: float, steal: float, total: float, own: float) -> Sample:
    return Sample(int(t_s * 1e9), None, None, None, None, (), None, None,
                  CpuCounters(busy, steal, total, own))


def test_parse_cpu_line_reads_the_aggregate_line() -> None:
    busy, steal, total = parse_cpu_line(b"cpu  100 5 20 300 10 1 2 7 50 0")
    tick = 1 / os.sysconf("SC_CLK_TCK")
    assert busy == pytest.approx(128 * tick)  # user+nice+system+irq+softirq; guest is in user
    assert steal == pytest.approx(7 * tick)
    assert total == pytest.approx((128 + 300 + 10 + 7) * tick)
    assert parse_cpu_line(b"cpu0 1 2 3 4 5 6 7 8") is None
    assert parse_cpu_line(b"cpu  1 2 3") is None


def test_phase_load_is_the_share_of_the_window_around_the_phase() -> None:
    # 2 CPUs over 1 s: the host busy 1.5 CPU-s, the run 0.5 of it, steal 0.1
    samples = [_sample(0.0, 10.0, 1.0, 100.0, 2.0), _sample(1.0, 11.5, 1.1, 102.0, 2.5)]
    load = phase_load(samples, int(0.2e9), int(0.7e9))  # half the window
    assert load.other_s == pytest.approx(0.5) and load.steal_s == pytest.approx(0.05)
    assert load.cpus_s == pytest.approx(1.0) and load.null_reason is None
    assert load.share == pytest.approx(0.55)
    # a phase past the newest sample gets the latest interval's share
    late = phase_load(samples, int(1.2e9), int(1.3e9))
    assert late.share == pytest.approx(0.55)
    assert phase_load(samples[:1], 0, 1).null_reason.startswith("not measured")


def test_unreadable_counters_say_why(tmp_path: Path) -> None:
    reader = HostCpuReader(tmp_path / "missing")
    assert reader.read(1.0) is None
    assert reader.null_reason.startswith("host CPU counters unreadable: ")
    garbled = tmp_path / "stat"
    garbled.write_text("intr 1 2 3\n")
    reader = HostCpuReader(garbled)
    assert reader.read(1.0) is None and "no aggregate `cpu` line" in reader.null_reason


def test_check_over_the_threshold_rules_timings_not_outcomes() -> None:
    disturbed = {f"load_{p}_{k}": v for p in ("prefill", "decode", "tool")
                 for k, v in (("other_s", 0.48), ("steal_s", 0.0), ("cpus_s", 1.0))}
    disturbed.update(prefill_ms=400.0, decode_ms=MIN_MODEL_S * 1000)
    reasons, _ = interference_check([disturbed], allowed=False)
    assert len(reasons) == 1
    assert "other processes used 48% and steal 0.0% of the CPUs during decode" in reasons[0]
    assert "outcomes (resolved counts, scores) stay valid" in reasons[0]
    reasons, notes = interference_check([disturbed], allowed=True)
    assert not reasons and "ACCEPTED with --allow-interference" in notes[0]
    quiet = {**disturbed, "load_decode_other_s": INTERFERENCE_THRESHOLD / 2,
             "load_prefill_other_s": 0.0}
    assert interference_check([quiet], allowed=False)[0] == []
    # too little model time to tell: not judged, whatever the share
    short = {**disturbed, "prefill_ms": 50.0, "decode_ms": 100.0}
    reasons, notes = interference_check([short], allowed=False)
    assert not reasons and notes[0].startswith("host interference not judged: the model "
                                               "phases took 0.15 s")


def _run(tiny_model_path: Path, out: Path, *extra: str) -> tuple[int, str, Path]:
    code, text, err = run_cli(*RUN, "--model", str(tiny_model_path), "--out", str(out),
                              *extra)
    (run_dir,) = out.iterdir()
    return code, text + err, run_dir


@pytest.mark.slow
def test_a_run_beside_busy_neighbours_is_invalid_for_its_timings(
        tiny_model_path: Path, tmp_path: Path) -> None:
    with busy_neighbours(os.cpu_count() or 2):
        code, text, run_dir = _run(tiny_model_path, tmp_path / "busy")
    assert code == 1, text
    assert "Result is: INVALID" in text
    assert "host interference: other processes used" in text
    assert "this run's timings and energy are not valid" in text
    check_code, out, _ = run_cli("check", str(run_dir), "--json")
    verdict = json.loads(out)["validity"] if "validity" in json.loads(out) else json.loads(out)
    assert check_code == 1 and any("host interference" in r for r in verdict["reasons"])
    report = run_cli("report", str(run_dir))[1]
    assert "host interference (share of the CPUs" in report


@pytest.mark.slow
def test_the_same_run_alone_passes_and_acceptance_is_recorded(
        tiny_model_path: Path, tmp_path: Path) -> None:
    load = sample_host_load(exclude=own_lineage())
    if load.busy_share is not None and load.busy_share > INTERFERENCE_THRESHOLD:
        pytest.skip(f"the machine is not quiet ({load.busy_share:.0%} of the CPUs busy before "
                    "the run): the alone case cannot be tested here")
    code, text, run_dir = _run(tiny_model_path, tmp_path / "alone")
    assert code == 0, text
    notes = run_cli("check", str(run_dir))[1]
    assert "host interference within bounds" in notes
    with busy_neighbours(os.cpu_count() or 2):
        code, text, run_dir = _run(tiny_model_path, tmp_path / "accepted",
                                   "--allow-interference")
    assert code == 0, text
    assert "host interference ACCEPTED with --allow-interference" in run_cli(
        "check", str(run_dir))[1]
    prov = json.loads((run_dir / "provenance.json").read_text())
    assert prov["interference"]["allowed"] is True
    assert prov["model"]["thread_policy"]["policy"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux's unshare")
def test_unreadable_counters_give_not_measured(tiny_model_path: Path, tmp_path: Path) -> None:
    """A container whose /proc/stat has no CPU lines, made with a private mount namespace:
    the real file without them bound over it (root only, as CI runs; skipped where the
    namespace cannot be made). psutil still finds its boot time there."""
    stat = tmp_path / "stat"
    stat.write_text("".join(line for line in Path("/proc/stat").read_text().splitlines(True)
                            if not line.startswith("cpu")))
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {stat} /proc/stat"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr.decode().strip()}")
    out = tmp_path / "runs"
    args = " ".join([*RUN, "--model", str(tiny_model_path), "--out", str(out)])
    script = f"mount --bind {stat} /proc/stat && exec {sys.executable} -m edgeagent.cli {args}"
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (run_dir,) = out.iterdir()
    notes = run_cli("check", str(run_dir))[1]
    assert ("host interference not measured: host CPU counters unreadable: /proc/stat has no "
            "aggregate `cpu` line") in notes
