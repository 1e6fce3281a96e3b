"""MLPerf's compliance checks as `edgeagent check` lists them on a replay run directory, and
`edgeagent replay --mlperf`, on the tiny models.

The workload is tests/fixtures/mlperf_all_scored.jsonl: 10 conversations whose every
assistant turn is one `bash` call with listed executables, so every turn has MLPerf ground
truth (expected == issued) and 10 trajectories make a VALID result, which lets `--strict`
show the compliance part of the exit code alone.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml
from cli_run import run_cli
from paths import FIXTURES
from scripted import ScriptedEngine

from edgeagent.config import load_config
from edgeagent.engine.base import Message, TurnTimeout
from edgeagent.replay.dataset import load_dataset
from edgeagent.run import ReplaySource, execute_replay
from edgeagent.rundir import SCORES_FILE, TURNS_FILE

DATASET = FIXTURES / "mlperf_all_scored.jsonl"
THREADS = ("--threads", "1")
MLPERF_CHECKS = ["temperature==0", "seed==42", "single_stream", "no_dropped_turns",
                 "all_turns_observed"]


def replay(*args: str) -> tuple[int, str, Path | None]:
    code, text, err = run_cli("replay", *args, *THREADS)
    run_dir = next((line.split()[1] for line in text.splitlines()
                    if line.startswith("results: ")), None)
    return code, text + err, Path(run_dir) if run_dir else None


def check(run_dir: Path, *extra: str) -> tuple[int, dict, str]:
    """(exit code, the --json document, the text output) of `edgeagent check`."""
    code, out, err = run_cli("check", str(run_dir), "--json", *extra)
    assert not err, err
    text_code, text, _ = run_cli("check", str(run_dir), *extra)
    assert text_code == code
    return code, json.loads(out), text


def by_name(doc: dict) -> dict[str, dict]:
    return {c["name"]: c for c in doc["compliance"]["checks"]}


def assert_listed(doc: dict, text: str) -> None:
    """The text lists every check of the JSON, in order, as MLPerf's report does."""
    lines = [x.strip() for x in text.splitlines()]
    for c in doc["compliance"]["checks"]:
        assert f"[{'PASS' if c['passed'] else 'FAIL'}] {c['name']}: {c['detail']}" in lines
    assert f"OVERALL: {doc['compliance']['overall']}" in lines


def largest_turn(model: Path, dataset: Path | None = None) -> dict:
    """The turn with the largest ISL, as `replay --isl --json` counts it."""
    args = [str(dataset)] if dataset else []
    code, out, err = run_cli("replay", *args, "--isl", "--json", "--model", str(model))
    assert code == 0, err
    return max(json.loads(out)["turns"], key=lambda t: t["isl"])


@pytest.fixture(scope="module")
def compliant_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    code, text, run_dir = replay(str(DATASET), "--model", str(tiny_model_path), "--seed", "42",
                                 "--max-new-tokens", "8",
                                 "--out", str(tmp_path_factory.mktemp("compliant")))
    assert code == 0 and run_dir is not None, text
    return run_dir


def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run_dir, tmp_path / run_dir.name))


@pytest.mark.slow
def test_a_compliant_replay_lists_every_mlperf_check_pass(compliant_run: Path) -> None:
    code, doc, text = check(compliant_run, "--strict")
    assert code == 0 and doc["result"] == "VALID"  # --strict: VALID and compliant
    assert [c["name"] for c in doc["compliance"]["checks"]] == MLPERF_CHECKS
    assert all(c["passed"] and c["mlperf"] for c in doc["compliance"]["checks"])
    assert doc["compliance"]["overall"] == "PASS" and doc["compliance"]["phase"] == "performance"
    assert_listed(doc, text)
    # beside our own verdict, which still comes first
    assert text.startswith("Result is: VALID")
    # single_stream is read from what the run did, against the steps run.db holds
    turns = (compliant_run / TURNS_FILE).read_text().splitlines()
    assert by_name(doc)["single_stream"]["detail"].startswith(
        f"max_in_flight=1 over {len(turns)} requests")
    scores = json.loads((compliant_run / SCORES_FILE).read_text())["turns"]
    assert by_name(doc)["all_turns_observed"]["detail"] == \
        f"observed={scores['observed']} == expected={scores['expected']} " \
        f"(issued={scores['issued']})"


@pytest.mark.slow
def test_another_seed_fails_seed_42(tiny_model_path: Path, tmp_path: Path) -> None:
    code, text, run_dir = replay(str(DATASET), "--model", str(tiny_model_path), "--seed", "7",
                                 "--max-new-tokens", "8", "--out", str(tmp_path))
    assert code == 0 and run_dir is not None, text
    code, doc, out = check(run_dir)
    assert code == 0 and doc["result"] == "VALID"  # our verdict alone sets the exit code
    seed = by_name(doc)["seed==42"]
    assert not seed["passed"] and seed["detail"] == "seed=7"
    assert [c["name"] for c in doc["compliance"]["checks"] if not c["passed"]] == ["seed==42"]
    assert doc["compliance"]["overall"] == "FAIL"
    assert_listed(doc, out)
    assert run_cli("check", str(run_dir), "--strict")[0] == 1  # --strict: compliant only


@pytest.mark.slow
def test_a_sampled_run_fails_temperature_0(compliant_run: Path, tmp_path: Path) -> None:
    # replay is greedy by construction: a sampled run's config.yaml is written here, as a
    # run directory from a sampling tool would hold it
    run_dir = copy_of(compliant_run, tmp_path)
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    config["temperature"] = 0.7
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    _, doc, out = check(run_dir)
    temperature = by_name(doc)["temperature==0"]
    assert not temperature["passed"] and temperature["detail"] == "temperature=0.7"
    assert doc["compliance"]["overall"] == "FAIL"
    assert "[FAIL] temperature==0: temperature=0.7" in out


@pytest.mark.slow
def test_overlapping_requests_fail_single_stream(compliant_run: Path, tmp_path: Path) -> None:
    run_dir = copy_of(compliant_run, tmp_path)
    db = sqlite3.connect(run_dir / "run.db")
    try:
        first, second = db.execute("SELECT rowid, wall_start, t_start_ns, t_decode_end_ns "
                                   "FROM steps ORDER BY wall_start LIMIT 2").fetchall()
        # the second request starts (on both clocks) half way through the first one
        early = (first[3] - first[2]) // 2
        db.execute("UPDATE steps SET wall_start = ?, t_start_ns = ?, t_decode_end_ns = "
                   "t_decode_end_ns - t_start_ns + ? WHERE rowid = ?",
                   (first[1] + early / 1e9, first[2] + early, first[2] + early, second[0]))
        db.commit()
    finally:
        db.close()
    _, doc, _ = check(run_dir)
    single = by_name(doc)["single_stream"]
    assert not single["passed"] and single["detail"].startswith("max_in_flight=2 ")


@pytest.mark.slow
def test_a_run_resumed_after_a_reboot_is_still_single_stream(compliant_run: Path,
                                                             tmp_path: Path) -> None:
    # a resume on another boot: the later turns' monotonic clock starts near zero again, so
    # their monotonic intervals overlap the earlier turns'; on the wall clock they follow
    run_dir = copy_of(compliant_run, tmp_path)
    db = sqlite3.connect(run_dir / "run.db")
    try:
        rows = db.execute("SELECT rowid, t_start_ns FROM steps ORDER BY wall_start").fetchall()
        later = [r[0] for r in rows[len(rows) // 2:]]
        # the second boot's clock: its first turn starts 1 ns after the first boot's did
        shift = rows[len(rows) // 2][1] - rows[0][1] - 1
        for rowid in later:
            db.execute("UPDATE steps SET t_start_ns = t_start_ns - ?, t_first_token_ns = "
                       "t_first_token_ns - ?, t_decode_end_ns = t_decode_end_ns - ? "
                       "WHERE rowid = ?", (shift, shift, shift, rowid))
        db.commit()
    finally:
        db.close()
    _, doc, _ = check(run_dir)
    single = by_name(doc)["single_stream"]
    assert single["passed"], single["detail"]
    assert single["detail"].startswith("max_in_flight=1 ")


@pytest.mark.slow
def test_a_dropped_turn_fails_no_dropped_turns(tiny_model_path: Path, tmp_path: Path) -> None:
    largest = largest_turn(tiny_model_path, DATASET)
    # a budget that fits every turn but the largest one in the smallest context
    budget = 512 - largest["isl"] + 1
    code, text, run_dir = replay(str(DATASET), "--model", str(tiny_model_path), "--seed", "42",
                                 "--n-ctx", "512", "--max-new-tokens", str(budget),
                                 "--out", str(tmp_path))
    assert run_dir is not None, text
    dropped = [t for t in map(json.loads, (run_dir / TURNS_FILE).read_text().splitlines())
               if t["status"] == "dropped"]
    assert dropped and code == 1  # INVALID, as our verdict says
    code, doc, out = check(run_dir)
    assert code == 1 and doc["result"] == "INVALID"
    checks = by_name(doc)
    assert not checks["no_dropped_turns"]["passed"]
    assert checks["no_dropped_turns"]["detail"].startswith(f"missing={len(dropped)} ")
    assert not checks["all_turns_observed"]["passed"]
    assert checks["seed==42"]["passed"] and checks["temperature==0"]["passed"]
    assert_listed(doc, out)


class EchoEngine(ScriptedEngine):
    """Answers every other turn with the recorded call, the rest with an unlisted command:
    an inline score between 0 and 1."""

    def __init__(self, commands: list[str]) -> None:
        super().__init__()
        self.commands = commands

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        command = self.commands[call] if call % 2 == 0 else "echo done"
        return json.dumps({"name": "bash", "arguments": {"command": command}}), "stop"


@pytest.fixture(scope="module")
def scored_run(tiny_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    conversations = load_dataset(DATASET)
    commands = [c.args["command"] for conv in conversations for row in conv.rows
                if row.role == "assistant" for c in row.tool_calls or ()]
    out = tmp_path_factory.mktemp("scored")
    config = load_config(None, {"model": str(tiny_model_path), "out": str(out), "seed": 42,
                                "max_new_tokens": 8, "suite": f"replay:{DATASET}"})
    engine = EchoEngine(commands)
    result = execute_replay(config, ReplaySource(str(DATASET), tuple(conversations)),
                            engine_factory=lambda path, cfg: engine, progress=False)
    return result.run_dir


class TimesOutEngine(EchoEngine):
    """EchoEngine whose first call runs past the turn timeout it was built with."""

    def __init__(self, commands: list[str], timeout_s: float) -> None:
        super().__init__(commands)
        self.timeout_s = timeout_s
        self.timed_out = False

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        if not self.timed_out:
            self.timed_out = True
            raise TurnTimeout(self.timeout_s)
        return super().answer(call, messages)


@pytest.mark.slow
def test_a_turn_timeout_fails_the_rest_of_its_conversation(tiny_model_path: Path,
                                                           tmp_path: Path) -> None:
    """As MLPerf's agentic load generator does: the timed-out turn and every later turn of its
    conversation fail, those never issued; the other conversations go on."""
    conversations = load_dataset(DATASET)
    commands = [c.args["command"] for conv in conversations for row in conv.rows
                if row.role == "assistant" for c in row.tool_calls or ()]
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path),
                                "seed": 42, "max_new_tokens": 8, "turn_timeout_s": 7,
                                "suite": f"replay:{DATASET}"})
    built: list = []

    def factory(path: Path, settings) -> TimesOutEngine:
        built.append(settings.turn_timeout_s)  # the in-process engine is given the limit
        return TimesOutEngine(commands, settings.turn_timeout_s)

    run_dir = execute_replay(config, ReplaySource(str(DATASET), tuple(conversations)),
                             engine_factory=factory, progress=False).run_dir
    assert built == [7.0]
    turns = [json.loads(x) for x in (run_dir / TURNS_FILE).read_text().splitlines()]
    first = [t for t in turns if t["conversation_id"] == conversations[0].id]
    assert len(first) == conversations[0].assistant_turns >= 2
    assert first[0]["status"] == "dropped"
    assert first[0]["reason"] == "turn timeout: the turn did not finish within the turn " \
        "timeout (7 s)"
    assert all(t["status"] == "dropped" and t["reason"] == f"not issued: turn "
               f"{first[0]['turn']} timed out" and t["score"] == 0 for t in first[1:])
    rest = [t for t in turns if t["conversation_id"] != conversations[0].id]
    assert rest and all(t["status"] == "completed" for t in rest)
    db = sqlite3.connect(run_dir / "run.db")
    try:  # no step for a turn without output
        assert db.execute("SELECT count(*) FROM steps").fetchone()[0] == len(rest)
    finally:
        db.close()
    code, doc, out = check(run_dir)
    assert code == 1 and doc["result"] == "INVALID"
    assert not by_name(doc)["no_dropped_turns"]["passed"]
    assert by_name(doc)["no_dropped_turns"]["detail"].startswith(f"missing={len(first)} ")


@pytest.mark.slow
def test_the_reference_gate_passes_and_fails(scored_run: Path) -> None:
    score = json.loads((scored_run / SCORES_FILE).read_text())["score"]
    assert 0 < score < 0.97  # the engine's misses: a gate at reference 1.0 cannot pass
    code, doc, out = check(scored_run, "--reference", str(score), "--strict")
    gate = by_name(doc)["accuracy:inline_score"]
    assert gate["passed"] and code == 0
    assert gate["detail"].startswith(f"{score:.4f} >= {0.97 * score:.4f} (=0.97 x {score:g})")
    assert gate["mlperf"] is False  # MLPerf gates the accuracy phase, not the inline score
    assert [c["name"] for c in doc["compliance"]["checks"]] == \
        [*MLPERF_CHECKS, "accuracy:inline_score"]
    assert_listed(doc, out)
    code, doc, out = check(scored_run, "--reference", "1.0", "--strict")
    gate = by_name(doc)["accuracy:inline_score"]
    assert not gate["passed"] and code == 1 and doc["compliance"]["overall"] == "FAIL"
    assert gate["detail"].startswith(f"{score:.4f} >= 0.9700 (=0.97 x 1)")
    assert "[FAIL] accuracy:inline_score" in out
    # without a reference there is no gate
    _, doc, _ = check(scored_run)
    assert "accuracy:inline_score" not in by_name(doc)


@pytest.mark.slow
def test_reference_user_errors_are_one_line(compliant_run: Path, tiny_model_path: Path,
                                            tmp_path: Path) -> None:
    code, _, err = run_cli("check", str(compliant_run), "--reference", "63.35")
    assert code == 2 and "fraction" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli("run", "--model", str(tiny_model_path), "--task", "fix-add",
                           "--max-steps", "1", "--max-new-tokens", "8", "--n-ctx", "2048",
                           "--out", str(tmp_path), *THREADS)
    (live,) = tmp_path.iterdir()
    code, out, err = run_cli("check", str(live), "--json")
    assert json.loads(out)["compliance"] is None  # a live run is no MLPerf phase
    assert "MLPerf compliance: not checked" in run_cli("check", str(live))[1]
    code, _, err = run_cli("check", str(live), "--reference", "0.6")
    assert code == 2 and "live run" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_mlperf_preset_sets_mlperf_run_settings(tiny_tools_model_path: Path,
                                                tmp_path: Path) -> None:
    code, text, run_dir = replay(str(DATASET), "--model", str(tiny_tools_model_path),
                                 "--mlperf", "--out", str(tmp_path))
    assert code == 0 and run_dir is not None, text
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert (config["temperature"], config["seed"], config["max_new_tokens"],
            config["turn_timeout_s"]) == (0.0, 42, 1024, 600.0)
    preset = config["replay"]["preset"]
    assert preset["name"] == "mlperf-edge-agentic" and preset["concurrency"] == 1
    assert preset["turn_timeout_enforced"] is True  # in process too
    assert config["replay"]["concurrency"] == 1
    auto = config["replay"]["n_ctx_auto"]
    assert config["n_ctx"] >= auto["largest_isl"] + 1024
    provenance = json.loads((run_dir / "provenance.json").read_text())
    assert provenance["replay"]["preset"] == preset
    turns = [json.loads(x) for x in (run_dir / TURNS_FILE).read_text().splitlines()]
    assert turns and all(t["status"] == "completed" for t in turns)
    code, doc, out = check(run_dir, "--strict")
    assert code == 0 and doc["compliance"]["preset"] == "mlperf-edge-agentic"
    assert all(c["passed"] for c in doc["compliance"]["checks"])
    assert "run with the mlperf-edge-agentic preset" in out


def test_mlperf_refuses_a_model_whose_context_cannot_hold_the_longest_turn(
    tiny_model_path: Path, tmp_path: Path
) -> None:
    largest = largest_turn(tiny_model_path)  # the bundled smoke workload, 2048-token model
    needed = largest["isl"] + 1024
    assert needed > 2048
    code, text, run_dir = replay("--model", str(tiny_model_path), "--mlperf",
                                 "--out", str(tmp_path / "runs"))
    err = text.strip().splitlines()
    assert code == 2 and run_dir is None and len(err) == 1, text
    assert (f"conversation {largest['conversation_id']} turn {largest['turn']} needs a "
            f"context of {needed} tokens") in err[0]
    assert "training context 2048" in err[0]
    # refused before the model loads: --out exists (checked writable first), empty
    assert not list((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("flag", [("--seed", "7"), ("--max-new-tokens", "512"),
                                  ("--turn-timeout-s", "60")])
def test_mlperf_refuses_a_contradicting_flag(flag: tuple[str, str], tmp_path: Path) -> None:
    code, text, run_dir = replay("--mlperf", *flag, "--out", str(tmp_path / "runs"))
    err = text.strip().splitlines()
    assert code == 2 and run_dir is None and len(err) == 1, text
    assert f"{flag[0]} {flag[1]} contradicts --mlperf" in err[0]


def test_mlperf_refuses_an_n_ctx_too_small(tiny_model_path: Path, tmp_path: Path) -> None:
    largest = largest_turn(tiny_model_path, DATASET)
    needed = largest["isl"] + 1024
    code, text, run_dir = replay(str(DATASET), "--model", str(tiny_model_path), "--mlperf",
                                 "--n-ctx", str(needed - 1), "--out", str(tmp_path / "runs"))
    err = text.strip().splitlines()
    assert code == 2 and run_dir is None and len(err) == 1, text
    assert err[0].startswith(f"edgeagent: error: --n-ctx {needed - 1} is smaller than the "
                             f"{needed} tokens")
