"""A real sweep on the tiny model (tests/conftest.py `tiny_sweep`: KV f16,q8_0 with flash
attention, 2 repeats): every configuration's settings reach llama.cpp and the run
record, and the table's numbers are the runs' own, recomputed here from run.db alone."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import statistics
from pathlib import Path
from typing import Any

import pytest
import yaml

from edgeagent import cli


def _index(sweep: Path) -> dict[str, Any]:
    return json.loads((sweep / "sweep.json").read_text())


def _table(sweep: Path) -> dict[str, Any]:
    return json.loads((sweep / "sweep-table.json").read_text())


def test_every_configuration_ran_with_its_settings(tiny_sweep: Path) -> None:
    index = _index(tiny_sweep)
    assert index["status"] == "complete"
    confs = index["configurations"]
    assert [c["settings"]["threads"] for c in confs] == [1, 1]
    assert [c["settings"]["type_k"] for c in confs] == ["f16", "q8_0"]
    seen = set()
    for conf in confs:
        assert [r["repeat"] for r in conf["runs"]] == [1, 2]
        for run in conf["runs"]:
            run_dir = tiny_sweep / run["run_dir"]
            assert run["status"] == "complete" and run_dir.parent == tiny_sweep / "runs"
            seen.add(run_dir)
            prov = json.loads((run_dir / "provenance.json").read_text())
            config = yaml.safe_load((run_dir / "config.yaml").read_text())
            for key, value in conf["settings"].items():
                # asked, read back from llama.cpp, and in the run's config
                assert prov["model"]["settings"][key] == value, (run_dir, key)
                used = value == "on" if key == "flash_attn" else value  # read back: a bool
                assert prov["model"]["settings_read_back"][key] == used, (run_dir, key)
                assert config[key] == value, (run_dir, key)
    assert len(seen) == 4 and sorted(seen) == sorted((tiny_sweep / "runs").iterdir())


def _steps(run_dir: Path) -> tuple[list[sqlite3.Row], sqlite3.Row]:
    db = sqlite3.connect(run_dir / "run.db")
    db.row_factory = sqlite3.Row
    try:
        return (db.execute("SELECT * FROM steps ORDER BY task_id, step").fetchall(),
                db.execute("SELECT * FROM runs").fetchone())
    finally:
        db.close()


def _per_run(run_dir: Path, ref: list[sqlite3.Row]) -> dict[str, float]:
    steps, run = _steps(run_dir)
    mine = {(s["task_id"], s["step"]): s for s in ref}
    pairs = [(mine[(s["task_id"], s["step"])], s) for s in steps]
    return {
        "turn_latency_p50_ms": statistics.median(
            (s["t_decode_end_ns"] - s["t_start_ns"]) / 1e6 for s in steps),
        "ttft_p50_ms": statistics.median(s["ttft_ms"] for s in steps),
        "tpot_p50_ms": statistics.median(s["tpot_ms"] for s in steps
                                         if s["tpot_ms"] is not None),
        "prefill_tok_s": sum(s["prefill_tokens"] for s in steps)
        / (sum(s["prefill_ms"] for s in steps) / 1000),
        "decode_tok_s": sum(s["decoded_tokens"] for s in steps)
        / (sum(s["decode_ms"] for s in steps) / 1000),
        "peak_rss_mb": run["peak_rss_bytes"] / 1e6,
        "kv_cache_mb_max": run["kv_cache_bytes_max"] / 1e6,
        "same_output": sum(a["raw_output"] == b["raw_output"]
                           and a["decoded_tokens"] == b["decoded_tokens"]
                           for a, b in pairs) / len(pairs),
        "same_tool": sum(a["action_name"] == b["action_name"] for a, b in pairs) / len(pairs),
    }


def test_the_table_is_the_runs_mean_and_sd(tiny_sweep: Path) -> None:
    index, table = _index(tiny_sweep), _table(tiny_sweep)
    first = tiny_sweep / index["configurations"][0]["runs"][0]["run_dir"]
    ref, _ = _steps(first)
    means: dict[str, tuple[float, float]] = {}
    for conf, row in zip(index["configurations"], table["rows"], strict=True):
        assert row["config_id"] == conf["id"] and row["repeats"] == 2
        runs = [_per_run(tiny_sweep / r["run_dir"], ref) for r in conf["runs"]]
        for key, values in {k: [r[k] for r in runs] for k in runs[0]}.items():
            cell = row["cells"][key]
            assert cell["n"] == 2
            assert cell["mean"] == pytest.approx(statistics.mean(values), rel=1e-9), key
            assert cell["sd"] == pytest.approx(statistics.stdev(values), rel=1e-9, abs=1e-12)
        # four turns: no p90; no power source here: no energy, each with its reason
        for key in ("turn_latency_p90_ms", "energy_per_turn_j"):
            assert row["cells"][key]["mean"] is None and row["cells"][key]["null_reason"]
        means[conf["id"]] = (row["cells"]["turn_latency_p50_ms"]["mean"],
                             row["cells"]["peak_rss_mb"]["mean"])
    # without energy the front is latency against peak memory: no row beaten on both
    assert table["pareto_axes"] == ["turn_latency_p50_ms", "peak_rss_mb"]
    for row in table["rows"]:
        x, y = means[row["config_id"]]
        beaten = any(ox <= x and oy <= y and (ox, oy) != (x, y) for ox, oy in means.values())
        assert row["pareto"] == (not beaten), row["config_id"]
    # the q8_0 cache holds the same context in fewer bytes
    kv = {r["label"]: r["cells"]["kv_cache_mb_max"]["mean"] for r in table["rows"]}
    assert kv["t=1 fa=1 kv=q8_0"] < kv["t=1 fa=1 kv=f16"]


def test_the_files_and_compare_show_the_same_table(
    tiny_sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _table(tiny_sweep)["rows"]
    assert cli.main(["compare", str(tiny_sweep), "--format", "csv"]) == 0
    printed = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    written = list(csv.DictReader(io.StringIO((tiny_sweep / "sweep.csv").read_text())))
    assert printed == written and [r["id"] for r in printed] == [r["config_id"] for r in rows]
    for line, row in zip(printed, rows, strict=True):
        assert float(line["ttft_p50_ms"]) == pytest.approx(row["cells"]["ttft_p50_ms"]["mean"])
    md = (tiny_sweep / "sweep.md").read_text()
    assert sum(1 for x in md.splitlines() if x.startswith("| c0")) == len(rows)
    assert "<svg" in (tiny_sweep / "sweep.html").read_text()
    assert cli.main(["compare", str(tiny_sweep)]) == 0
    assert "t=1 fa=1 kv=q8_0" in capsys.readouterr().out
    run_dir = tiny_sweep / _index(tiny_sweep)["configurations"][0]["runs"][0]["run_dir"]
    assert cli.main(["compare", str(tiny_sweep), str(run_dir)]) == 2
    assert "compare takes one sweep directory alone" in capsys.readouterr().err


def test_resume_of_a_finished_sweep_runs_nothing(
    tiny_sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted((tiny_sweep / "runs").iterdir())
    assert cli.main(["sweep", "--resume", str(tiny_sweep)]) == 0
    assert sorted((tiny_sweep / "runs").iterdir()) == before
    err = capsys.readouterr().err
    assert not [x for x in err.splitlines() if x.startswith("[")]  # no run started or redone
    assert cli.main(["sweep", "--resume", str(tiny_sweep), "--threads", "4"]) == 2
    assert "drop --threads" in capsys.readouterr().err
