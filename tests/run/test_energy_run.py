"""Energy through the whole pipeline: a run on a fixture sysfs tree with a constant-power sensor
(an INA226 reading 4,113,120 µW), and `edgeagent sensors` on fixture trees."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import paths
import pytest
from paths import ROOT

from edgeagent.cli import main

FIXTURES = paths.FIXTURES / "sysfs"
WATTS = 4.11312  # tests/fixtures/sysfs/hwmon/sbc: power1_input = 4113120 µW


@pytest.fixture(scope="module")
def metered_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs")
    code = main([
        "run", "--model", str(tiny_model_path), "--out", str(out), "--max-steps", "3",
        "--max-new-tokens", "24", "--n-ctx", "2048", "--threads", "1",
        "--power-root", str(FIXTURES / "hwmon" / "sbc"), "--baseline-s", "0.5",
    ])
    assert code == 0
    (run_dir,) = out.iterdir()
    return run_dir


@pytest.mark.slow
def test_every_phase_energy_is_power_times_duration(metered_run: Path) -> None:
    db = sqlite3.connect(metered_run / "run.db")
    db.row_factory = sqlite3.Row
    steps = db.execute("SELECT * FROM steps").fetchall()
    assert steps
    for s in steps:
        phases = {
            "prefill": (s["t_start_ns"], s["t_first_token_ns"]),
            "decode": (s["t_first_token_ns"], s["t_decode_end_ns"]),
            "tool": (s["t_tool_start_ns"], s["t_tool_end_ns"]),
            "other": (s["t_other_start_ns"], s["t_start_ns"]),
        }
        for phase, (t0, t1) in phases.items():
            assert s[f"energy_{phase}_source"] == "hwmon:ina226/power1"
            assert s[f"energy_{phase}_scope"] == "board"
            assert s[f"energy_{phase}_j"] == pytest.approx(WATTS * (t1 - t0) / 1e9, rel=1e-6)


@pytest.mark.slow
def test_task_and_run_energy_are_recorded(metered_run: Path) -> None:
    db = sqlite3.connect(metered_run / "run.db")
    db.row_factory = sqlite3.Row
    tasks = db.execute("SELECT * FROM tasks").fetchall()
    assert len(tasks) == 3
    for t in tasks:
        assert t["energy_j"] > 0 and t["energy_null_reason"] is None
        assert t["average_w"] == pytest.approx(WATTS, rel=1e-6)
        phase_sum = sum(t[f"energy_{p}_j"] for p in ("prefill", "decode", "tool", "other"))
        assert phase_sum <= t["energy_j"] * (1 + 1e-9)  # the phases are a breakdown of it
    run = db.execute("SELECT * FROM runs").fetchone()
    assert run["energy_j"] == pytest.approx(sum(t["energy_j"] for t in tasks))
    assert run["sample_hz"] > 5
    prov = json.loads(run["provenance_json"])
    assert prov["power"]["total"]["sources"] == ["hwmon:ina226/power1"]
    readings = db.execute("SELECT DISTINCT source, value FROM sample_readings").fetchall()
    assert [tuple(r) for r in readings] == [("hwmon:ina226/power1", WATTS)]


@pytest.mark.slow
def test_report_gives_energy_metrics(metered_run: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["report", str(metered_run)]) == 0
    out = capsys.readouterr().out
    assert "energy (hwmon:ina226/power1, scope board" in out
    assert f"average {WATTS:.2f} W" in out
    for metric in ("J per task", "J per resolved task", "J per step", "mJ per generated token",
                   "tokens per J", "by phase: prefill"):
        assert metric in out
    assert "not measured" not in out
    # a constant sensor: the idle baseline is the same power, so the net energy is ~0 J
    assert f"net of the idle baseline ({WATTS:.2f} W" in out
    assert "): 0.0 J" in out or "): -0.0 J" in out


@pytest.mark.slow
def test_sensors_lists_sources_and_explains_the_unavailable(
    capsys: pytest.CaptureFixture,
) -> None:
    assert main(["sensors", "--root", str(FIXTURES / "rapl" / "laptop"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["total"]["label"] == "rapl:psys"
    reading = report["readings"]["rapl:package-0"]  # a number and its unit, not "4.1 J"
    assert isinstance(reading["value"], float) and reading["unit"] == "J"
    assert reading["kind"] == "energy counter" and reading["null_reason"] is None
    reasons = {u["name"]: u["reason"] for u in report["unavailable"]}
    assert reasons["battery"] == "not present"
    assert reasons["estimate:cpu-tdp"] == "no TDP declared"


@pytest.mark.slow
def test_sensors_watch_prints_watts_and_ends_quietly_on_ctrl_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "edgeagent.cli", "sensors", "--watch", "--root",
         str(FIXTURES / "rapl" / "laptop")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert proc.stdout is not None
        watch = ""
        while not re.match(r"\d\d:\d\d:\d\d  ", watch):  # the listing, then a time line
            watch = proc.stdout.readline()
            assert watch, "the watch ended before its first line"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # a RAPL counter is shown as its rate in watts, not its running total in joules
    assert "rapl:package-0 0.000 W" in watch and " J" not in watch
    assert proc.returncode == 130 and "Traceback" not in err


@pytest.mark.slow
def test_sensors_watch_with_no_source_is_one_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    assert main(["sensors", "--watch", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing to watch" in err[0] and "--power-estimate-tdp" in err[0]


@pytest.mark.slow
def test_sensors_on_a_charging_battery_says_why(capsys: pytest.CaptureFixture) -> None:
    assert main(["sensors", "--root", str(FIXTURES / "battery" / "charging")]) == 0
    out = capsys.readouterr().out
    assert "not discharging (status: Charging)" in out
    assert "unplug the charger" in out
    assert "total: none (no power source found" in out


def test_sensors_rejects_a_missing_root(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["sensors", "--root", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--root" in err[0]


@pytest.mark.slow
def test_sensors_baseline_on_a_constant_sensor(capsys: pytest.CaptureFixture) -> None:
    assert main(["sensors", "--root", str(FIXTURES / "hwmon" / "sbc"), "--baseline", "0.5s"]) == 0
    out = capsys.readouterr().out
    assert f"baseline: {WATTS:.3f} W idle" in out
