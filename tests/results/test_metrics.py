"""Every metric of the stored fixture run (tests/run_fixture.py) against its value computed by
hand; the report formats that carry them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from run_fixture import provenance, uniform_tasks, write_run

from edgeagent import cli
from edgeagent.results.metrics import (
    load_run,
    metrics_by_key,
    roofline_metrics,
    run_metrics,
    step_metrics,
)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run(tmp_path_factory.mktemp("fixture") / "run")


@pytest.fixture(scope="module")
def m(run_dir: Path) -> dict:
    data = load_run(run_dir)
    return {k: v.value for k, v in metrics_by_key(
        run_metrics(data) + roofline_metrics(data, bandwidth_gbs=20.0)).items()}


def test_task_level_metrics_by_hand(m: dict) -> None:
    assert m["tasks_attempted"] == 2
    assert m["tasks_resolved"] == 1
    assert m["resolved_rate"] == 0.5
    # 2 completed (1 resolved) tasks in a 20 s run: 2 / (20 / 3600) per hour
    assert m["tasks_per_hour"] == pytest.approx(360.0)
    assert m["resolved_per_hour"] == pytest.approx(180.0)
    assert m["run_wall_s"] == pytest.approx(20.0)


def test_latency_percentiles_by_hand(m: dict) -> None:
    # trajectories 8 s and 6 s
    assert m["trajectory_mean_s"] == pytest.approx(7.0)
    assert m["trajectory_p50"] == pytest.approx(7.0)
    assert m["trajectory_p90"] is None and m["trajectory_p99"] is None  # 2 < 10, 2 < 100
    assert m["trajectory_p90_bound"] is None  # needs 64
    # steps: a0 0->4 s, a1 5->7 s, b0 10->16 s
    assert m["step_latency_p50"] == pytest.approx(4.0)
    assert m["ttft_p50"] == pytest.approx(1000.0)  # 1000, 500, 2000 ms
    assert m["tpot_p50"] == pytest.approx(100.0)  # 2000/20, 1000/10; b0 has 1 token: none


def test_energy_metrics_by_hand(m: dict) -> None:
    assert m["energy_j"] == pytest.approx(110.0)
    assert m["energy_per_task_j"] == pytest.approx(55.0)
    assert m["energy_per_resolved_j"] == pytest.approx(110.0)
    # 60 J over 8 s + 50 J over 6 s
    assert m["average_power_w"] == pytest.approx(110.0 / 14.0)
    # 21 + 11 + 1 generated tokens
    assert m["tokens_per_joule"] == pytest.approx(33 / 110)


def test_phase_shares_by_hand(m: dict) -> None:
    task_ms = 14_000  # 8 s + 6 s
    assert m["time_share_prefill"] == pytest.approx((1000 + 500 + 2000) / task_ms)
    assert m["time_share_decode"] == pytest.approx((2000 + 1000 + 1000) / task_ms)
    assert m["time_share_tool"] == pytest.approx((1000 + 500 + 3000) / task_ms)
    assert m["time_share_other"] == pytest.approx((0 + 1000 + 0) / task_ms)
    assert m["time_share_retrieval"] == pytest.approx(700 / task_ms)
    assert m["energy_share_prefill"] == pytest.approx(34 / 110)
    assert m["energy_share_decode"] == pytest.approx(40 / 110)
    assert m["energy_share_tool"] == pytest.approx(22 / 110)
    assert m["energy_share_other"] == pytest.approx(3 / 110)
    assert m["energy_share_retrieval"] is None  # not metered as its own phase


def test_roofline_by_hand(m: dict) -> None:
    # bytes per token: 1e9 weights + 1000 B/token x (context + half the generated tokens);
    # at 1000 / TPOT = 10 tok/s
    a0 = (1e9 + 1000 * (100 + 21 / 2)) * 10 / 1e9
    a1 = (1e9 + 1000 * (200 + 11 / 2)) * 10 / 1e9
    assert m["decode_achieved_gbs"] == pytest.approx((a0 + a1) / 2)
    assert m["decode_roofline_efficiency"] == pytest.approx((a0 + a1) / 2 / 20.0)


def test_step_metrics_by_hand(run_dir: Path) -> None:
    rows = {(r["task_id"], r["step"]): r for r in step_metrics(load_run(run_dir), 20.0)}
    a0, a1, b0 = rows[("a", 0)], rows[("a", 1)], rows[("b", 0)]
    assert a0["ttft_ms"] == pytest.approx(1000) and a0["tpot_ms"] == pytest.approx(100)
    assert a0["prefill_tok_s"] == pytest.approx(100 / 0.9)
    assert a1["prefill_tok_s"] == pytest.approx(50 / 0.4)
    assert b0["prefill_tok_s"] == pytest.approx(300 / 1.8)
    assert a0["cache_reuse_ratio"] == 0 and a1["cache_reuse_ratio"] == pytest.approx(0.75)
    assert a1["kv_cache_bytes"] == (200 + 11) * 1000
    assert b0["tpot_ms"] is None and b0["decode_roofline_efficiency"] is None
    assert a1["other_ms"] == pytest.approx(1000)


def test_without_a_sensor_energy_metrics_are_null_with_the_reason(tmp_path: Path) -> None:
    from run_fixture import default_tasks, provenance, replace_task

    tasks = [(replace_task(t, energy_j=None, energy_null_reason="no power source found"), s)
             for t, s in default_tasks()]
    data = load_run(write_run(tmp_path / "r", tasks, prov=provenance(sensor=False)))
    by = metrics_by_key(run_metrics(data))
    for key in ("energy_j", "energy_per_task_j", "average_power_w", "tokens_per_joule"):
        assert by[key].value is None
        assert by[key].null_reason == "no power source found"
    eff = metrics_by_key(roofline_metrics(data, None))["decode_roofline_efficiency"]
    assert eff.value is None and "--bandwidth-gbs" in eff.null_reason


def test_report_formats(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report", str(run_dir), "--format", "json", "--bandwidth-gbs", "20"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metrics"]["energy_per_task_j"]["value"] == pytest.approx(55.0)
    assert doc["validity"]["result"] == "SMOKE"  # two tasks: a smoke check
    assert len(doc["steps"]) == 3 and [t["task_id"] for t in doc["tasks"]] == ["a", "b"]

    assert cli.main(["report", str(run_dir), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    run_rows = {r["metric"]: r for r in rows if r["level"] == "run"}
    assert float(run_rows["tasks_per_hour"]["value"]) == pytest.approx(360.0)
    assert {r["level"] for r in rows} == {"run", "task", "step"}

    assert cli.main(["report", str(run_dir), "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "**Result is: SMOKE**" in md and "| energy per task | 55.00 J |" in md

    assert cli.main(["report", str(run_dir)]) == 0
    text = capsys.readouterr().out
    assert "resolved 1/2 (50.0%), 360.0 tasks/h completed" in text
    assert "Result is: SMOKE CHECK passed (2 trajectories" in text


def test_html_report_is_one_file_with_inline_plots(run_dir: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "report.html"
    assert cli.main(["report", str(run_dir), "--format", "html", "-o", str(out)]) == 0
    html = out.read_text()
    for name in ("context", "step_latency", "power", "energy", "prefill"):
        assert f'id="plot-{name}"' in html
    assert html.count("<svg") == 5
    assert "src=" not in html and "href=\"http" not in html  # nothing fetched from elsewhere
    from edgeagent.results.validity import check_run

    assert f"Result is: {check_run(run_dir).result}" in html  # the verdict `check` gives


def test_report_rejects_a_bad_bandwidth(run_dir: Path, capsys: pytest.CaptureFixture) -> None:
    assert cli.main(["report", str(run_dir), "--bandwidth-gbs", "-1"]) == 2
    assert "--bandwidth-gbs must be a positive number" in capsys.readouterr().err


def test_html_without_matplotlib_says_how_to_get_it(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert cli.main(["report", str(run_dir), "--format", "html"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'edgeagent[plots]'" in err and "Traceback" not in err


def test_estimated_energy_is_labelled_so(tmp_path: Path) -> None:
    from run_fixture import provenance

    prov = provenance()
    prov["power"]["total"].update(scope="estimated", estimated=True)
    by = metrics_by_key(run_metrics(load_run(write_run(tmp_path / "r", prov=prov))))
    for key in ("energy_j", "energy_per_task_j", "average_power_w", "energy_share_decode"):
        assert by[key].label.endswith("(ESTIMATED)")
    assert by["energy_j"].value == pytest.approx(110.0)  # the number itself is unchanged


def test_a_run_without_energy_says_so_once(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """No row of n/a ("average power n/a, n/a"): one line with the reason."""
    run = write_run(tmp_path / "r", uniform_tasks(2, energy_j=None),
                    prov=provenance(sensor=False))
    assert cli.main(["report", str(run)]) == 0
    text = capsys.readouterr().out
    assert "  energy: not measured (no power source found)" in text
    assert "n/a, n/a" not in text and "1 samples" not in text and "2 samples;" in text


def test_the_report_describes_the_device(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    prov = provenance()
    prov["device"] = {
        "device_model": "NVIDIA Jetson Orin Nano Developer Kit", "cpu_model": "ARMv8 rev 1",
        "cpu_physical_cores": 6, "cpu_logical_cores": 6, "memory_total_bytes": 8 * 2**30,
        "os": "Linux", "os_release": "Ubuntu 22.04.4 LTS", "kernel": "5.15.136-tegra",
        "machine": "aarch64", "llama_cpp_python_version": "0.3.36",
        "llama_system_info": "CPU : NEON = 1 | ARM_FMA = 1 | SVE = 0 | OPENMP = 1 |",
        "memory_bandwidth": {"gbs": 60.0, "measured_unix": 0.0, "cached": True},
    }
    prov["power"]["jetson_board"] = {"model": "NVIDIA Jetson Orin Nano Developer Kit",
                                     "nvpmodel_id": 0, "nvpmodel_name": "15W",
                                     "nvpmodel_source": "status", "l4t_release": "36.3.0"}
    run = write_run(tmp_path / "r", prov=prov)
    assert cli.main(["report", str(run)]) == 0
    text = capsys.readouterr().out
    assert ("device NVIDIA Jetson Orin Nano Developer Kit: ARMv8 rev 1, 6 cores / 6 threads, "
            "8.0 GiB memory, Ubuntu 22.04.4 LTS (kernel 5.15.136-tegra, aarch64)") in text
    assert "build  llama-cpp-python 0.3.36; compiled in: NEON ARM_FMA OPENMP" in text
    assert "power mode  nvpmodel 15W (id 0, status); L4T 36.3.0" in text
    assert "memory bandwidth 60.0 GB/s (streaming copy" in text
    # the recorded bandwidth is the roofline: no --bandwidth-gbs needed
    line = next(x for x in text.splitlines() if "roofline efficiency" in x)
    assert "n/a" not in line
