"""The command line: help and version, `tasks`, `models list`, and bad inputs that exit 2
with one line on stderr naming what is wrong, before (or instead of) loading a model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent import __version__, cli
from edgeagent.models import DEFAULT_MODEL, KNOWN_MODELS
from edgeagent.suite import suites_root

EDGEAGENT = Path(sys.executable).with_name("edgeagent")  # the console script of this venv


@pytest.fixture(autouse=True)
def isolated_models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "models"
    monkeypatch.setenv("EDGEAGENT_MODELS_DIR", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return root


def error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The whole of stderr, which must be exactly one `edgeagent: error:` line."""
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), repr(err)
    assert lines[0].startswith("edgeagent: error: ")
    assert "Traceback" not in err
    return lines[0]


def run_args(tmp_path: Path, model: Path | str, *extra: str) -> list[str]:
    return [
        "run", "--model", str(model), "--out", str(tmp_path / "runs"),
        "--threads", "1", "--n-ctx", "2048", "--max-steps", "1", *extra,
    ]  # fmt: skip


def assert_no_run_dir(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    assert not out.is_dir() or not any(out.iterdir())


def copy_smoke(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    shutil.copytree(suites_root() / "smoke", suite)
    return suite


# ------------------------------------------------------------------------ help, version


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"edgeagent {__version__}"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["run"],
        ["report"],
        ["models"],
        ["models", "list"],
        ["models", "pull"],
        ["agents"],
        ["agents", "list"],
        ["agents", "install"],
        ["tasks"],
        ["tasks", "list"],
        ["tasks", "validate"],
    ],
    ids=lambda a: " ".join(a) or "edgeagent",
)
def test_help_exits_0(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main([*argv, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: edgeagent")
    assert " ".join(["edgeagent", *argv]) in out.splitlines()[0]


def test_missing_subcommand_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2
    assert "usage:" in capsys.readouterr().err


# ------------------------------------------------------------------------ tasks, models


def test_tasks_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "list", "--no-context"]) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()] == [
        "id", "fix-add", "fix-shout", "fix-sum-to",
    ]


@pytest.mark.slow
def test_tasks_validate_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "validate", "smoke", "--no-context"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(line.split()[1] for line in lines if line.startswith("ok ")) == [
        "fix-add:", "fix-shout:", "fix-sum-to:",
    ]  # fmt: skip
    assert lines[-1] == "3 tasks validated"


def test_models_list_shows_known_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["models", "list"]) == 0
    out = capsys.readouterr().out
    for name in KNOWN_MODELS:
        assert name in out
    default_line = next(line for line in out.splitlines() if line.startswith(DEFAULT_MODEL))
    assert default_line.count("default") == 1 and default_line.endswith("(default)")


def test_models_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["models", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows if r["known"]} == set(KNOWN_MODELS)
    (default,) = [r for r in rows if r["default"]]
    assert default["name"] == DEFAULT_MODEL and isinstance(default["present"], bool)


def test_tasks_show_prints_the_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    """The help promises the oracle: show prints its tool calls, not only their count."""
    assert cli.main(["tasks", "show", "smoke/fix-add"]) == 0
    out = capsys.readouterr().out
    assert "oracle (the reference solution, one tool call a step):" in out
    assert "  1. " in out and "calc.py" in out.split("oracle (the reference")[1]
    assert cli.main(["tasks", "show", "smoke/fix-add", "--json"]) == 0
    oracle = json.loads(capsys.readouterr().out)["oracle"]
    assert oracle and all(set(step) == {"tool", "args"} for step in oracle)


@pytest.mark.slow
def test_one_task_validated_is_singular(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["tasks", "validate", "smoke", "--task", "fix-add", "--no-context"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 task validated"


def test_docs_name_the_bandwidth_command_that_exists() -> None:
    """`python -m edgeagent.results.bandwidth` is gone; `edgeagent doctor --bandwidth` is
    the command every page names."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    stale = [p.name for p in pages if "edgeagent.results.bandwidth" in p.read_text()]
    assert stale == []
    assert "--bandwidth" in (ROOT / "docs" / "metrics.md").read_text()


# ------------------------------------------------------------------------ bad inputs


@pytest.mark.slow
def test_missing_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(run_args(tmp_path, "/nonexistent/x.gguf")) == 2
    line = error_line(capsys)
    assert "/nonexistent/x.gguf" in line and "not found" in line
    assert_no_run_dir(tmp_path)


@pytest.mark.slow
def test_model_that_is_not_gguf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bogus = tmp_path / "x.gguf"
    bogus.write_bytes(os.urandom(4096).replace(b"GGUF", b"gguf"))
    assert cli.main(run_args(tmp_path, bogus)) == 2
    line = error_line(capsys)
    assert str(bogus) in line and "not a GGUF file" in line
    assert_no_run_dir(tmp_path)


@pytest.mark.slow
def test_truncated_gguf_fails_to_load_cleanly(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "half.gguf"
    data = tiny_model_path.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    assert cli.main(run_args(tmp_path, broken)) == 2
    line = error_line(capsys)
    assert str(broken) in line and "cannot load model" in line
    assert_no_run_dir(tmp_path)


def _fake_known_model(models_dir: Path) -> Path:
    spec = KNOWN_MODELS[DEFAULT_MODEL]
    models_dir.mkdir(parents=True, exist_ok=True)
    fake = models_dir / spec.filename
    fake.write_bytes(b"GGUF" + b"\0" * 4096)  # GGUF magic, wrong bytes
    return fake


@pytest.mark.slow
def test_known_model_with_wrong_sha256(
    tmp_path: Path, isolated_models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = _fake_known_model(isolated_models_dir)
    assert cli.main(run_args(tmp_path, DEFAULT_MODEL)) == 2
    line = error_line(capsys)
    assert "sha256 mismatch" in line and str(fake) in line
    assert KNOWN_MODELS[DEFAULT_MODEL].sha256 in line
    assert_no_run_dir(tmp_path)


def test_models_pull_reports_a_corrupt_present_model(
    isolated_models_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = _fake_known_model(isolated_models_dir)
    assert cli.main(["models", "pull", DEFAULT_MODEL]) == 2
    line = error_line(capsys)
    assert "sha256 mismatch" in line and str(fake) in line


def test_unknown_model_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["models", "pull", "no-such-model"]) == 2
    assert "'no-such-model'" in error_line(capsys)


def test_unknown_suite(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(run_args(tmp_path, tiny_model_path, "--suite", "nope-suite")) == 2
    line = error_line(capsys)
    assert "unknown suite 'nope-suite'" in line and "smoke" in line
    assert_no_run_dir(tmp_path)


def test_unknown_task_id(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(run_args(tmp_path, tiny_model_path, "--task", "nope")) == 2
    line = error_line(capsys)
    assert "'nope'" in line and "fix-add" in line  # the known tasks are listed
    assert_no_run_dir(tmp_path)


def test_malformed_task_yaml(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = copy_smoke(tmp_path)
    task_yaml = suite / "fix-shout" / "task.yaml"
    task_yaml.write_text(task_yaml.read_text() + "max_step: 3\n")

    assert cli.main(run_args(tmp_path, tiny_model_path, "--suite", str(suite))) == 2
    line = error_line(capsys)
    assert str(task_yaml) in line and "'max_step'" in line
    assert_no_run_dir(tmp_path)


def test_task_yaml_with_bad_yaml_syntax(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = copy_smoke(tmp_path)
    task_yaml = suite / "fix-add" / "task.yaml"
    task_yaml.write_text("id: fix-add\ntitle: [unclosed\n")

    assert cli.main(run_args(tmp_path, tiny_model_path, "--suite", str(suite))) == 2
    line = error_line(capsys)
    assert str(task_yaml) in line and "line " in line


def test_unwritable_output_dir(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # we run as root, so permissions would not stop a write: a file as parent does
    (tmp_path / "afile").write_text("not a directory")
    out = tmp_path / "afile" / "runs"
    argv = run_args(tmp_path, tiny_model_path)
    argv[argv.index("--out") + 1] = str(out)

    assert cli.main(argv) == 2
    line = error_line(capsys)
    assert str(out) in line and "--out" in line
    assert (tmp_path / "afile").read_text() == "not a directory"


@pytest.mark.slow
def test_task_whose_tests_cannot_run(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = copy_smoke(tmp_path)
    task_yaml = suite / "fix-sum-to" / "task.yaml"
    text = task_yaml.read_text()
    start = text.index("test_command:")
    end = text.index("\n", start)
    task_yaml.write_text(text[:start] + "test_command: nonexistent-test-runner-xyz" + text[end:])

    argv = run_args(tmp_path, "/nonexistent/never-loaded.gguf", "--suite", str(suite))
    assert cli.main(argv) == 2
    line = error_line(capsys)
    # reported before the model is even looked up
    assert str(task_yaml) in line and "nonexistent-test-runner-xyz" in line
    assert "never-loaded" not in line
    assert_no_run_dir(tmp_path)


def test_report_on_a_directory_without_run_db(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["report", str(tmp_path)]) == 2
    line = error_line(capsys)
    assert "no run.db" in line and str(tmp_path) in line


def test_config_file_with_an_unknown_key(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("max_steps: 2\nmodle: tiny\n")
    argv = run_args(tmp_path, tiny_model_path, "--config", str(config))

    assert cli.main(argv) == 2
    line = error_line(capsys)
    assert f"{config}:2" in line and "'modle'" in line
    assert "did you mean 'model'?" in line  # as task.yaml's unknown keys get
    assert_no_run_dir(tmp_path)


def test_missing_config_file(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent.yaml"
    assert cli.main(run_args(tmp_path, tiny_model_path, "--config", str(missing))) == 2
    assert str(missing) in error_line(capsys)


def test_negative_flag_value(
    tmp_path: Path, tiny_model_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(run_args(tmp_path, tiny_model_path, "--wall-s", "-5")) == 2
    assert "--wall-s" in error_line(capsys)


# ------------------------------------------------------------------------ real process


def _run_script(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "EDGEAGENT_MODELS_DIR": str(tmp_path / "models"), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [str(EDGEAGENT), *args], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=120,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("case", ["missing-model", "wrong-sha256", "no-run-db"])
def test_real_process_exits_2_with_one_stderr_line(tmp_path: Path, case: str) -> None:
    if case == "missing-model":
        args, named = run_args(tmp_path, "/nonexistent/x.gguf"), "/nonexistent/x.gguf"
    elif case == "wrong-sha256":
        named = str(_fake_known_model(tmp_path / "models"))
        args = run_args(tmp_path, DEFAULT_MODEL)
    else:
        args, named = ["report", str(tmp_path)], str(tmp_path)

    proc = _run_script(args, tmp_path)

    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1, repr(proc.stderr)
    assert proc.stderr.startswith("edgeagent: error: ") and named in proc.stderr
    assert proc.stdout == ""


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_output_quietly() -> None:
    """`edgeagent tasks list core | head -1`: no BrokenPipeError traceback, exit 141 (SIGPIPE)
    as cat's would be. The pipe's read end is closed before the command starts, so its first
    write fails, whatever the timing."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "edgeagent.cli", "tasks", "list", "core", "--no-context"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=60,
            cwd=ROOT,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr
