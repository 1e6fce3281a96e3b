"""`run --repeats N` and `replay --repeats N`: one group directory of ordinary run
directories and repeats.json (mean, sd, 95% interval, n per metric), the wide-spread note,
Ctrl-C between repetitions, and the one-line user errors."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import paths
import pytest
from cli_run import run_cli

from edgeagent.cli.repeats import RepeatStop, run_repeats
from edgeagent.results import Headline, RepeatRun, pool, summarize_repeats, t_quantile, wide_note
from edgeagent.rundir import REPEATS_FILE

SMALL = ("--n-ctx", "2048", "--threads", "1")
SENSOR = paths.FIXTURES / "sysfs" / "hwmon" / "sbc"  # a constant 4.11 W sensor
RUN = ("--task", "fix-add", "--max-steps", "2", "--max-new-tokens", "8", *SMALL)
REPLAY = ("--conversations", "1", "--max-new-tokens", "4", *SMALL)
FIELDS = {"label", "unit", "n", "mean", "sd", "ci95", "half_width_pct", "t", "values", "wide",
          "null_reason"}


def _group(out: Path) -> tuple[Path, dict, list[Path]]:
    """The one group directory under `out`, its repeats.json and its run directories."""
    (group,) = out.iterdir()
    doc = json.loads((group / REPEATS_FILE).read_text())
    runs = sorted(d for d in group.iterdir() if d.is_dir())
    return group, doc, runs


def _check_group(doc: dict, runs: list[Path], code: int) -> None:
    assert doc["repeats"] == 2 and doc["finished"] == 2 and doc["status"] == "complete"
    assert len(runs) == 2 and all((d / "run.db").is_file() for d in runs)
    assert sorted(r["run_dir"] for r in doc["runs"]) == [d.name for d in runs]
    # the worst verdict's exit code: each run's is the one `check` gives its directory
    assert code == doc["exit_code"] == max(r["exit_code"] for r in doc["runs"])
    for run in doc["runs"]:
        assert run_cli("check", str(runs[0].parent / run["run_dir"]))[0] == run["exit_code"]
    for key in ("run_wall_s", "decode_tok_s", "prefill_tok_s", "ttft_p50",
                "step_latency_p50"):
        m = doc["metrics"][key]
        assert set(m) == FIELDS and m["n"] == 2 and len(m["values"]) == 2
        assert m["ci95"][0] <= m["mean"] <= m["ci95"][1] and m["t"] == pytest.approx(12.7062)


@pytest.mark.slow
def test_run_repeats_makes_a_group_of_ordinary_runs(tiny_model_path: Path,
                                                    tmp_path: Path) -> None:
    code, out, err = run_cli("run", "--model", str(tiny_model_path), "--out", str(tmp_path),
                             "--repeats", "2", "--power-root", str(SENSOR), *RUN)
    group, doc, runs = _group(tmp_path)
    assert group.name.endswith("-smoke-x2") and doc["command"] == "run"
    _check_group(doc, runs, code)
    energy = doc["metrics"]["energy_per_task_j"]
    assert energy["n"] == 2 and energy["mean"] > 0 and energy["null_reason"] is None
    assert doc["metrics"]["tasks_resolved"]["mean"] == 0  # the random model resolves nothing
    assert "repeat 2/2" in err
    lines = out.splitlines()
    assert lines[-1] == f"repeats: {group / REPEATS_FILE}"
    assert any(line.startswith("decode tok/s") and " 2 " in line for line in lines)
    assert run_cli("report", str(runs[0]))[0] == 0  # each one an ordinary run directory
    # the browser (`edgeagent view OUT`) lists the group's runs
    from edgeagent.tui.stored import find_runs

    assert {r.path.name for r in find_runs(tmp_path)} == {r.name for r in runs}


@pytest.mark.slow
def test_replay_repeats_json_ends_with_the_summary(tiny_model_path: Path,
                                                  tmp_path: Path) -> None:
    no_sensor = tmp_path / "no-sensor"
    no_sensor.mkdir()
    out_dir = tmp_path / "runs"
    code, out, _ = run_cli("replay", "--model", str(tiny_model_path), "--out", str(out_dir),
                           "--repeats", "2", "--json", "--power-root", str(no_sensor), *REPLAY)
    group, doc, runs = _group(out_dir)
    last = json.loads(out.splitlines()[-1])
    assert last["event"] == "Repeats" and last["group_dir"] == str(group)
    assert {k: v for k, v in last.items() if k != "event"} == doc
    assert doc["command"] == "replay" and group.name.endswith("-replay-smoke-x2")
    _check_group(doc, runs, code)
    assert all((d / "result_summary.json").is_file() for d in runs)
    # the smoke workload calls our tools: MLPerf's rule scores none of its turns, ours all
    assert doc["metrics"]["inline_score"]["mean"] is None
    assert doc["metrics"]["own_inline_score"]["n"] == 2
    energy = doc["metrics"]["energy_per_task_j"]
    assert energy["mean"] is None and energy["null_reason"]  # no sensor: why, never 0


@pytest.mark.parametrize(("command", "extra", "says"), [
    ("run", ("--repeats", "0"), "--repeats 0: give 1 or more"),
    ("replay", ("--repeats", "-1"), "--repeats -1: give 1 or more"),
    ("run", ("--repeats", "2", "--resume", "somewhere"), "--repeats cannot go with --resume"),
    ("replay", ("--repeats", "2", "--resume", "somewhere"), "--repeats cannot go with --resume"),
])
def test_bad_repeats_is_one_line_and_exit_2(tmp_path: Path, command: str,
                                            extra: tuple[str, ...], says: str) -> None:
    code, out, err = run_cli(command, "--model", "no-such.gguf", "--out", str(tmp_path),
                             *extra)
    assert code == 2 and err.count("\n") == 1 and says in err, err
    assert err.startswith("edgeagent: error: ") and not list(tmp_path.iterdir())


# -- the summary on synthetic values ----------------------------------------------------------
DECODE = Headline("decode_tok_s", "decode tok/s", "tok/s", True)
RESOLVED = Headline("tasks_resolved", "resolved tasks", "tasks", False)


def test_t_quantiles() -> None:
    assert t_quantile(1) == 12.7062 and t_quantile(2) == 4.3027
    assert t_quantile(30) == 2.0423 and t_quantile(31) == t_quantile(500) == 1.96
    with pytest.raises(ValueError):
        t_quantile(0)


def test_a_narrow_interval_has_no_note() -> None:
    m = pool(DECODE, [(100.0, None), (101.0, None), (99.0, None)])
    assert m.n == 3 and m.mean == 100.0 and m.sd == 1.0 and m.t == 4.3027
    half = 4.3027 / 3 ** 0.5
    assert m.ci95 == pytest.approx((100 - half, 100 + half))
    assert m.half_width_pct == pytest.approx(half) and not m.wide


def test_a_wide_interval_says_so() -> None:
    m = pool(DECODE, [(90.0, None), (110.0, None), (100.0, None)])
    assert m.wide and m.half_width_pct == pytest.approx(24.84, abs=0.01)
    assert wide_note(m) == ("decode tok/s: 95% interval ±24.8% of the mean, too wide to "
                            "compare devices that differ by less; run more repeats on a "
                            "quieter machine")
    # the rule is for costs: an outcome's spread is not a device's
    assert not pool(RESOLVED, [(1.0, None), (3.0, None)]).wide


def test_one_value_or_a_missing_one_has_no_interval() -> None:
    one = pool(DECODE, [(100.0, None)])
    assert one.mean == 100.0 and one.sd is None and one.ci95 is None and one.n == 1
    assert one.null_reason == "one finished repetition: no spread"
    some = pool(DECODE, [(100.0, None), (None, "no decode time")])
    assert some.mean is None and some.n == 1
    assert some.null_reason == "n/a in 1 of 2 runs: no decode time"


def test_ctrl_c_between_repetitions_keeps_what_is_done(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    stop = RepeatStop()
    calls: list[str] = []

    def once(group: str, stop: RepeatStop) -> RepeatRun:
        calls.append(group)
        stop.press(signal.SIGINT)  # during the first run: it finishes, no other starts
        assert not stop()  # the run itself is not told to stop
        return RepeatRun(None, "complete", 0)

    code = run_repeats(3, str(tmp_path), "smoke", "run", False, once, stop)
    assert code == 130 and len(calls) == 1
    doc = json.loads((Path(calls[0]) / REPEATS_FILE).read_text())
    assert doc["status"] == "interrupted" and len(doc["runs"]) == 1
    assert "repeats: 0 of 3 runs finished (interrupted)" in capsys.readouterr().out
    stop.press(signal.SIGINT)  # the second: the current run stops after its step
    assert stop()
    with pytest.raises(KeyboardInterrupt):  # the third: at once
        stop.press(signal.SIGINT)


def test_summary_of_no_finished_run(tmp_path: Path) -> None:
    s = summarize_repeats(tmp_path, "replay", 2, [RepeatRun(None, "aborted", 130)],
                          "interrupted")
    assert s.finished == 0 and s.exit_code == 130
    assert all(m.mean is None and m.null_reason == "no finished repetition" for m in s.metrics)
    assert any("did not finish" in n for n in s.notes)
