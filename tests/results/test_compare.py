"""`edgeagent compare`: ratios of every headline metric to the first run, per-task deltas,
warnings that say why runs are not comparable, and `--by device` pooling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_fixture import default_tasks, provenance, replace_task, write_run

from edgeagent import cli
from edgeagent.results.compare import compare_runs
from edgeagent.results.metrics import load_run


def slower_tasks(wall: float = 2.0, energy: float = 0.5):
    """The default tasks taking `wall` x the time and `energy` x the joules."""
    return [(replace_task(t, wall_ms=t.wall_ms * wall, energy_j=t.energy_j * energy,
                          average_w=t.energy_j * energy / (t.wall_ms * wall / 1000)), s)
            for t, s in default_tasks()]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    a = write_run(tmp_path / "a", prov=provenance(device="Board A"))
    b = write_run(tmp_path / "b", slower_tasks(), wall_ms=40_000,
                  prov=provenance(device="Board B"))
    return a, b


def test_ratios_of_headline_metrics(pair: tuple[Path, Path]) -> None:
    c = compare_runs([load_run(p) for p in pair])
    assert c.ratio("trajectory_mean_s", 1) == pytest.approx(2.0)  # 14 s vs 7 s
    assert c.ratio("tasks_per_hour", 1) == pytest.approx(0.5)  # 40 s run vs 20 s
    assert c.ratio("energy_j", 1) == pytest.approx(0.5)  # 55 J vs 110 J
    assert c.ratio("energy_per_resolved_j", 1) == pytest.approx(0.5)
    assert c.ratio("average_power_w", 1) == pytest.approx(0.25)  # half the J over twice the s
    assert c.ratio("tokens_per_joule", 1) == pytest.approx(2.0)
    assert c.ratio("resolved_rate", 1) == pytest.approx(1.0)
    assert c.ratio("trajectory_p90", 1) is None  # n/a on both sides: no ratio
    deltas = {d["task_id"]: d for d in c.task_deltas}
    assert deltas["a"]["wall_s_delta"] == pytest.approx(8.0)
    assert deltas["b"]["energy_j_delta"] == pytest.approx(-25.0)
    assert deltas["a"]["outcome"] == "resolved -> resolved"
    # same suite, tasks, model and config: only the device differs
    assert len(c.warnings) == 1 and c.warnings[0].startswith("device differs (A: Board A")


def test_warnings_say_why_runs_are_not_comparable(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a")
    b = write_run(tmp_path / "b", suite="core", prov=provenance(sha="b" * 64),
                  config={"suite": "core", "model": "m", "max_steps": 9})
    c = compare_runs([load_run(a), load_run(b)])
    text = "\n".join(c.warnings)
    assert "not comparable: suite differs (A: ['s'], B: ['core'])" in text
    assert f"not comparable: model sha256 differs (A: {'a' * 12}, B: {'b' * 12})" in text
    assert "not comparable: config max_steps differs (A: None, B: 9)" in text
    # one difference, one warning: the config's suite is the suite already named
    assert "config suite differs" not in text and len(c.warnings) == len(set(c.warnings))


def test_compare_cli_text_and_json(pair: tuple[Path, Path],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    assert cli.main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "warning: device differs" in out
    line = next(x for x in out.splitlines() if x.startswith("energy per task "))
    assert "55.00 J" in line and "27.50 J" in line and "0.50x" in line
    assert cli.main(["compare", str(a), str(b), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ratios"]["trajectory_mean_s"] == [pytest.approx(2.0)]
    assert cli.main(["compare", str(a)]) == 2  # one run is no comparison


def test_by_device_pools_runs_of_one_device(tmp_path: Path) -> None:
    a1 = write_run(tmp_path / "a1", prov=provenance(device="Board A"))
    a2 = write_run(tmp_path / "a2", prov=provenance(device="Board A"))
    b = write_run(tmp_path / "b", slower_tasks(), wall_ms=40_000,
                  prov=provenance(device="Board B"))
    c = compare_runs([load_run(p) for p in (a1, a2, b)], by_device=True)
    assert c.labels == ("A", "B") and c.names == ("Board A (2 runs)", "Board B")
    pooled = {m.key: m.value for m in c.metrics[0]}
    assert pooled["tasks_attempted"] == 4 and pooled["energy_j"] == pytest.approx(220.0)
    assert pooled["tasks_per_hour"] == pytest.approx(4 / (40 / 3600))
    assert c.ratio("trajectory_mean_s", 1) == pytest.approx(2.0)
    assert not any("device differs" in w for w in c.warnings)


def test_columns_are_letters_with_a_legend(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Run ids (58 characters) are not column headers: A, B with a legend line each."""
    long_a = write_run(tmp_path / ("20261201-063317-smoke-qwen2.5-coder-0.5b-instruct-q4_k_m-a"))
    long_b = write_run(tmp_path / ("20261201-063317-smoke-qwen2.5-coder-0.5b-instruct-q4_k_m-b"),
                       slower_tasks(), prov=provenance(device="Board B"))
    assert cli.main(["compare", str(long_a), str(long_b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"A = {long_a.name}: model m, Board X, measured energy"
    assert out[1] == f"B = {long_b.name}: model m, Board B, measured energy"
    header = next(x for x in out if x.startswith("metric "))
    assert header.split() == ["metric", "A", "B", "ratio"]
    assert max(len(x) for x in out if not x.startswith(("A = ", "B = ", "warning"))) < 100


def test_compare_csv_and_html(pair: tuple[Path, Path], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    import csv
    import io

    a, b = pair
    assert cli.main(["compare", str(a), str(b), "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["metric", "label", "unit", "A", "B", "B/A"]
    energy = next(r for r in rows if r[0] == "energy_per_task_j")
    assert float(energy[3]) == pytest.approx(55.0) and float(energy[5]) == pytest.approx(0.5)
    assert ["legend", "A", "", "a: model m, Board A, measured energy"] in rows
    out = tmp_path / "compare.html"
    assert cli.main(["compare", str(a), str(b), "--format", "html", "-o", str(out)]) == 0
    page = out.read_text()
    assert page.startswith("<!doctype html>") and "<th>A</th>" in page
    assert "A = a: model m, Board A" in page and "warning: device differs" in page


def test_by_device_never_pools_an_estimate_with_a_measurement(tmp_path: Path) -> None:
    estimated = provenance(device="Board A")
    estimated["power"]["total"]["estimated"] = True
    measured = write_run(tmp_path / "m", prov=provenance(device="Board A"))
    guessed = write_run(tmp_path / "e", prov=estimated)
    unmetered = write_run(tmp_path / "n", prov=provenance(device="Board A", sensor=False))
    c = compare_runs([load_run(p) for p in (measured, guessed, unmetered)], by_device=True)
    assert c.names == ("Board A, measured energy", "Board A, estimated energy",
                       "Board A, no energy")
    assert any("kept in separate columns" in w for w in c.warnings)


def test_by_config_pools_repeats_as_mean_and_sd(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Repeats of one configuration: one column, each metric as mean ± sd (llama-bench's
    one row per configuration)."""
    a1 = write_run(tmp_path / "a1", prov=provenance(device="Board A"))
    a2 = write_run(tmp_path / "a2", slower_tasks(), wall_ms=40_000,
                   prov=provenance(device="Board A"))
    b = write_run(tmp_path / "b", prov=provenance(device="Board B"))
    assert cli.main(["compare", str(a1), str(a2), str(b), "--by", "config",
                     "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["labels"] == ["A", "B"] and doc["repeats"] == [2, 1]
    assert doc["legend"][0].endswith("2 runs: a1, a2")
    # trajectory mean 7 s and 14 s: mean 10.5, sample sd 4.95
    assert doc["metrics"][0]["trajectory_mean_s"]["value"] == pytest.approx(10.5)
    assert doc["spread_sd"][0]["trajectory_mean_s"] == pytest.approx(4.9497, abs=1e-3)
    assert doc["spread_sd"][1]["trajectory_mean_s"] is None  # one run: no sd
    assert doc["ratios"]["trajectory_mean_s"] == [pytest.approx(7 / 10.5)]
    assert cli.main(["compare", str(a1), str(a2), str(b), "--by", "config"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines()
                if x.startswith("trajectory latency mean"))
    assert "10.50 s ± 4.950" in line


def test_token_agreement_counts_steps_with_the_first_runs_tokens(tmp_path: Path) -> None:
    """Two runs of the same work (say in process and through a server) side by side: how many
    paired steps have A's prompt and output token counts, and the throughput rows."""
    import dataclasses

    a = write_run(tmp_path / "a")
    same = write_run(tmp_path / "same", slower_tasks())
    other_tasks = [(t, [dataclasses.replace(s, decoded_tokens=s.decoded_tokens + 1)
                        if s.step == 0 else s for s in steps]) for t, steps in default_tasks()]
    other = write_run(tmp_path / "other", other_tasks)
    c = compare_runs([load_run(p) for p in (a, same, other)])
    n = len(load_run(a).steps)
    first_steps = sum(1 for s in load_run(a).steps if s["step"] == 0)
    assert c.token_agreement == (f"{n}/{n} / {n}/{n}",
                                 f"{n}/{n} / {n - first_steps}/{n}")
    keys = {m.key for m in c.metrics[0]}
    assert {"prefill_tok_s", "decode_tok_s"} <= keys
    assert c.ratio("decode_tok_s", 1) == pytest.approx(1.0)  # same tokens over the same time
