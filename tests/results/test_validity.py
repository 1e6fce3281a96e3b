"""`edgeagent check`: a crafted run that passes every check, and one crafted run per INVALID
reason that fails exactly that check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from run_fixture import (
    add_column,
    provenance,
    replace_task,
    samples,
    uniform_tasks,
    write_run,
)

from edgeagent import cli
from edgeagent.results.validity import check_run


def valid_run(path: Path, **kw) -> Path:
    return write_run(path, kw.pop("tasks", uniform_tasks(10)), wall_ms=20_000, **kw)


def only_reason(run_dir: Path) -> str:
    verdict = check_run(run_dir)
    assert not verdict.valid
    assert len(verdict.reasons) == 1, verdict.reasons
    return verdict.reasons[0]


def test_a_clean_run_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = valid_run(tmp_path / "r")
    verdict = check_run(run)
    assert verdict.valid and verdict.reasons == ()
    assert any("no throttling" in n for n in verdict.notes)
    assert cli.main(["check", str(run)]) == 0
    assert capsys.readouterr().out.startswith("Result is: VALID")


def test_interrupted_run(tmp_path: Path) -> None:
    assert "interrupted" in only_reason(valid_run(tmp_path / "r", status="interrupted"))


def test_crashed_run(tmp_path: Path) -> None:
    assert "ended without finishing" in only_reason(valid_run(tmp_path / "r", status=None))


def test_tasks_left_unrun(tmp_path: Path) -> None:
    tasks = uniform_tasks(10)
    ids = [t.task_id for t, _ in tasks] + ["never-ran"]
    assert "1 of 11 tasks not run: never-ran" in only_reason(
        valid_run(tmp_path / "r", tasks=tasks, task_ids=ids))


def test_harness_error(tmp_path: Path) -> None:
    tasks = uniform_tasks(10)
    record, steps = tasks[3]
    tasks[3] = (replace_task(record, outcome="error", termination="engine_error",
                             error="llama_decode returned -1"), steps)
    reason = only_reason(valid_run(tmp_path / "r", tasks=tasks))
    assert "task t03 errored in the harness (engine_error: llama_decode returned -1)" == reason


def test_dropped_replay_turns(tmp_path: Path) -> None:
    run = valid_run(tmp_path / "r")
    add_column(run, "runs", "dropped_turns", 2)
    assert only_reason(run) == "2 replay turns dropped (valid only with 0)"
    clean = valid_run(tmp_path / "clean")
    add_column(clean, "steps", "dropped", 0)
    verdict = check_run(clean)
    assert verdict.valid and "0 replay turns dropped" in verdict.notes


def test_dropped_turns_from_the_replay_turn_file(tmp_path: Path) -> None:
    run = valid_run(tmp_path / "r")
    turns = [{"status": "completed"}, {"status": "dropped"}, {"status": "dropped"}]
    (run / "replay_turns.jsonl").write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    assert only_reason(run) == "2 replay turns dropped (valid only with 0)"


def test_a_task_terminated_by_dropped_turns(tmp_path: Path) -> None:
    tasks = uniform_tasks(10)
    record, steps = tasks[0]
    tasks[0] = (replace_task(record, outcome="invalid", termination="dropped_turns"), steps)
    assert only_reason(valid_run(tmp_path / "r", tasks=tasks)) == (
        "1 replay turns dropped (valid only with 0)")


def test_missing_energy_when_requested(tmp_path: Path) -> None:
    # a sensor was found (provenance has a total) but the tasks have no energy
    run = valid_run(tmp_path / "r", tasks=uniform_tasks(10, energy_j=None))
    assert only_reason(run).startswith("energy requested but missing for 10 of 10 tasks")
    # asked for in the config, no sensor at all
    asked = valid_run(tmp_path / "asked", tasks=uniform_tasks(10, energy_j=None),
                      prov=provenance(sensor=False),
                      config={"suite": "s", "power_estimate_tdp": 15})
    assert only_reason(asked).startswith("energy requested but missing")
    # neither: not measured, not a failure
    plain = valid_run(tmp_path / "plain", tasks=uniform_tasks(10, energy_j=None),
                      prov=provenance(sensor=False))
    assert check_run(plain).valid


def test_an_estimate_is_not_called_measured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prov = provenance(sensor=False)
    prov["power"] = {"sources": [{"name": "estimate:cpu-tdp", "kind": "power",
                                  "scope": "estimated"}], "unavailable": [],
                     "total": {"label": "ESTIMATE cpu x 15 W TDP", "scope": "estimated",
                               "sources": ["estimate:cpu-tdp"], "estimated": True}}
    run = valid_run(tmp_path / "r", prov=prov,
                    config={"suite": "s", "power_estimate_tdp": 15})
    assert cli.main(["check", str(run)]) == 0
    text = capsys.readouterr().out
    energy_text = "\n".join(line for line in text.splitlines() if "interference" not in line)
    assert "measured" not in energy_text.replace("not a measurement", "")
    assert "ok: energy ESTIMATED for every task (ESTIMATE cpu x 15 W TDP" in text
    assert cli.main(["check", str(run), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    assert not any("energy measured" in n for n in notes)
    assert any(n.startswith("energy ESTIMATED for every task") for n in notes)


def test_too_few_samples_make_a_smoke_check_not_a_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = valid_run(tmp_path / "r", tasks=uniform_tasks(9))
    verdict = check_run(run)
    assert verdict.result == "SMOKE" and not verdict.valid and verdict.reasons == ()
    assert cli.main(["check", str(run)]) == 0  # a passed smoke check
    out = capsys.readouterr().out
    assert out.startswith("Result is: SMOKE CHECK passed (9 trajectories: a smoke check, not a "
                          "result (a p90 latency result needs at least 10))")
    assert "INVALID" not in out and "n/a" not in out
    assert cli.main(["check", str(run), "--strict"]) == 1  # only VALID passes --strict
    capsys.readouterr()
    assert cli.main(["check", str(run), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"] == "SMOKE"
    # a smoke run that also failed is INVALID, for its failure; the sample count is a note
    failed = valid_run(tmp_path / "f", tasks=uniform_tasks(1), status="interrupted")
    verdict = check_run(failed)
    assert verdict.result == "INVALID" and len(verdict.reasons) == 1
    assert "1 trajectory: a smoke check" in verdict.notes[-1]


def test_a_task_without_a_step_is_no_trajectory(tmp_path: Path) -> None:
    ((record, _),) = uniform_tasks(1)
    empty = replace_task(record, steps=0, termination="engine_error", outcome="error",
                         error="model failed to load")
    verdict = check_run(valid_run(tmp_path / "r", tasks=[(empty, [])]))
    assert verdict.result == "INVALID"
    assert "no trajectory recorded (no task took a step)" in verdict.reasons


def test_thermal_throttling(tmp_path: Path) -> None:
    # 1 Hz samples under load: 3 GHz for 10 s, then 2 GHz; a sample stands for the time to
    # the next one, so the low clock covers 9 of the 19 loaded seconds
    rows = samples(20, mhz=[3000.0] * 10 + [2000.0] * 10)
    reason = only_reason(valid_run(tmp_path / "r", sample_rows=rows))
    assert reason.startswith("throttling: CPU clock under load fell below 85% of its loaded "
                             "peak (3000 -> median 2000 MHz) for 9.0 s, 47% of loaded time")
    # the same clocks while idle are DVFS, not throttling
    idle = samples(20, mhz=[3000.0] * 10 + [2000.0] * 10, cpu=5.0)
    assert check_run(valid_run(tmp_path / "idle", sample_rows=idle)).valid


def test_check_cli_exit_code_and_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = valid_run(tmp_path / "r", status="interrupted")
    assert cli.main(["check", str(run), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["result"] == "INVALID" and doc["valid"] is False
    assert cli.main(["check", str(tmp_path)]) == 2  # not a run directory
    assert "no run.db" in capsys.readouterr().err


@pytest.mark.slow
def test_every_run_ends_with_the_verdict(tiny_model_path: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main([
        "run", "--model", str(tiny_model_path), "--suite", "smoke", "--task", "fix-add",
        "--out", str(tmp_path), "--max-steps", "1", "--max-new-tokens", "8",
        "--n-ctx", "2048", "--threads", "1",
    ])  # fmt: skip
    assert code == 0  # a passed smoke check exits 0, as `check` does
    lines = capsys.readouterr().out.splitlines()
    verdict = [x for x in lines if x.startswith("Result is:")]
    run_dir = lines[-1].split()[1]
    assert "0/1 resolved" in lines[-2]  # the summary still closes the output
    # the one verdict: what the run printed is what `check` prints on its directory
    assert cli.main(["check", run_dir]) == code
    assert verdict == [capsys.readouterr().out.splitlines()[0]]
    assert verdict[0].startswith("Result is: SMOKE CHECK passed (1 trajectory: a smoke check")
