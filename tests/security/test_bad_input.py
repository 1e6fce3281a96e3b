"""Bad and hostile input through the command line: one clear line naming the file, line or key
and the fix, exit code 2, no traceback; nothing written, or the run marked failed and what it
had recorded kept."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.suite import suites_root

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
FAST = ["--max-steps", "2", "--max-new-tokens", "16", "--n-ctx", "2048", "--threads", "1"]


def _bomb(first_key: str, last_line: str) -> str:
    """Billion laughs: nine levels of nine aliases (9**9 leaves) in a few hundred bytes."""
    lines = [f'{first_key}: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"{name}{name}: &{name} [{', '.join([f'*{prev}'] * 9)}]")
        prev = name
    return "\n".join(lines + [last_line]) + "\n"


def _cli(argv: list[str]) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli.main(argv)
    return code, err.getvalue() + out.getvalue()


def _one_clear_line(code: int, text: str, *needles: str, exit_code: int = 2) -> None:
    assert code == exit_code, text
    assert "Traceback" not in text
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("edgeagent: error:")]
    assert len(lines) == 1, text
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    dst = tmp_path / "suite"
    dst.mkdir()
    shutil.copytree(suites_root() / "smoke" / "fix-add", dst / "fix-add")
    return dst


def _runs(out: Path) -> list[Path]:
    return [p for p in out.iterdir() if p.is_dir()] if out.exists() else []


TASK_YAML_CASES = {
    "yaml bomb": (_bomb("title", "id: fix-add"), ("task.yaml", "line 2", "alias")),
    "unknown key": ("EXTRA", ("task.yaml", "colour")),
    "wrong type": ("max_steps: ten", ("task.yaml", "limits.max_steps")),
    "not a mapping": ("- just\n- a list\n", ("task.yaml",)),
    "duplicate key": ("DUP", ("task.yaml", "duplicate key")),
    "not utf-8": (b"\xff\xfe\x00garbage", ("task.yaml", "UTF-8")),
    "syntax error": ("id: [unclosed\n", ("task.yaml", "line")),
}


@pytest.mark.parametrize("case", list(TASK_YAML_CASES))
def test_hostile_task_yaml(
    case: str, suite: Path, tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    content, needles = TASK_YAML_CASES[case]
    task_yaml = suite / "fix-add" / "task.yaml"
    original = task_yaml.read_text()
    if content == "EXTRA":
        content = original + "colour: red\n"
    elif content == "DUP":
        content = original + "title: again\n"
    elif content == "max_steps: ten":
        content = original.replace("max_steps: 12", "max_steps: ten")
    if isinstance(content, bytes):
        task_yaml.write_bytes(content)
    else:
        task_yaml.write_text(content)
    out = tmp_path / "runs"
    code, text = _cli(["run", "--suite", str(suite), "--model", str(tiny_model_path),
                       "--out", str(out), *FAST])
    reliability("bad_input", tried=1)
    _one_clear_line(code, text, *needles)
    assert _runs(out) == []
    reliability("bad_input", clear_error=1)


@pytest.mark.slow
@pytest.mark.parametrize("oracle,needles", [
    ("- tool: cat_file\n  args: {path: calc.py}\n", ("oracle.yaml", "step 1", "cat_file")),
    (_bomb("x", "- tool: submit"), ("oracle.yaml", "alias")),
    ("- tool: read_file\n  args: [1, 2]\n", ("oracle.yaml", "step 1", "args")),
], ids=["unknown tool", "yaml bomb", "args not a mapping"])
def test_bad_oracle_steps(oracle: str, needles: tuple, suite: Path, reliability) -> None:
    (suite / "fix-add" / "oracle.yaml").write_text(oracle)
    reliability("bad_input", tried=1)
    done = subprocess.run([str(EDGEAGENT), "tasks", "validate", str(suite)],
                          capture_output=True, text=True, timeout=60)
    # validate reports each failing task on its own FAIL line and exits 1
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
    fail = [ln for ln in done.stdout.splitlines() if ln.startswith("FAIL")]
    assert len(fail) == 1 and all(n in fail[0] for n in needles), done.stdout
    reliability("bad_input", clear_error=1)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["truncated", "not gguf", "bad header"])
def test_bad_model_file(
    kind: str, suite: Path, tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    model = tmp_path / "model.gguf"
    data = tiny_model_path.read_bytes()
    model.write_bytes({"truncated": data[: len(data) // 3], "not gguf": b"<html>404</html>\n",
                       "bad header": b"GGUF\x03\x00\x00\x00" + b"\xff" * 64}[kind])
    out = tmp_path / "runs"
    reliability("bad_input", tried=1)
    code, text = _cli(["run", "--suite", str(suite), "--model", str(model),
                       "--out", str(out), *FAST])
    _one_clear_line(code, text, "model.gguf")
    assert _runs(out) == []
    reliability("bad_input", clear_error=1)


CONFIG_CASES = {
    "yaml bomb": (_bomb("x", "max_steps: 3"), ("line 2", "alias")),
    "zero steps": ("max_steps: 0\n", ("max_steps",)),
    "negative wall": ("wall_s: -5\n", ("wall_s",)),
    "tiny context": ("n_ctx: 100\n", ("n_ctx",)),
    "answer larger than context": ("n_ctx: 1024\nmax_new_tokens: 4096\n", ("max_new_tokens",)),
    "context limit above window": ("n_ctx: 1024\nmax_context_tokens: 9000\n",
                                   ("max_context_tokens",)),
    "unknown key": ("max_stepz: 3\n", ("max_stepz",)),
}


@pytest.mark.parametrize("case", list(CONFIG_CASES))
def test_impossible_or_hostile_config(
    case: str, suite: Path, tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    content, needles = CONFIG_CASES[case]
    config = tmp_path / "config.yaml"
    config.write_text(content)
    out = tmp_path / "runs"
    reliability("bad_input", tried=1)
    code, text = _cli(["run", "--config", str(config), "--suite", str(suite),
                       "--model", str(tiny_model_path), "--out", str(out), "--threads", "1"])
    _one_clear_line(code, text, "config.yaml", *needles)
    assert _runs(out) == []
    reliability("bad_input", clear_error=1)


def test_output_dir_is_a_file(
    suite: Path, tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    out = tmp_path / "runs"
    out.write_text("a file where a directory is expected\n")
    reliability("bad_input", tried=1)
    code, text = _cli(["run", "--suite", str(suite), "--model", str(tiny_model_path),
                       "--out", str(out / "sub"), *FAST])
    _one_clear_line(code, text, str(out))
    assert out.read_text().startswith("a file")
    reliability("bad_input", clear_error=1)


@pytest.mark.slow
def test_output_dir_on_a_read_only_mount(
    suite: Path, tmp_path: Path, tiny_model_path: Path, reliability
) -> None:
    # As root, chmod does not stop writes; a read-only bind mount in a private namespace does.
    ro = tmp_path / "ro"
    ro.mkdir()
    unshare = shutil.which("unshare")
    probe = subprocess.run(
        [unshare or "unshare", "--mount", "sh", "-c", f"mount --bind -o ro {ro} {ro} && "
         f"! touch {ro}/x 2>/dev/null"], capture_output=True)
    if unshare is None or probe.returncode != 0:
        pytest.skip("cannot make a read-only mount here (needs unshare --mount)")
    reliability("bad_input", tried=1)
    script = (f"mount --bind -o ro {ro} {ro} && exec {EDGEAGENT} run --suite {suite} "
              f"--model {tiny_model_path} --out {ro}/runs {' '.join(FAST)}")
    done = subprocess.run([unshare, "--mount", "sh", "-c", script], capture_output=True,
                          text=True, timeout=60)
    _one_clear_line(done.returncode, done.stderr, f"{ro}/runs", "Read-only")
    assert not (ro / "runs").exists()
    reliability("bad_input", clear_error=1)


_USER = ('{"conversation_id": "c1", "turn": 1, "role": "user", "content": "fix it", '
         '"system": "agent", "tools": []}')
_CALL = ('{"conversation_id": "c1", "turn": 2, "role": "assistant", "tool_calls": [{"id": "k1",'
         ' "type": "function", "function": {"name": "bash", "arguments": "{\\"command\\": '
         '\\"ls\\"}"}}]}')
_RESULT = ('{"conversation_id": "c1", "turn": 3, "role": "tool", "tool_results": '
           '[{"tool_call_id": "k1", "content": "a.py"}], "delay_seconds": 0.1}')


@pytest.mark.parametrize(("lines", "line_no", "needle"), [
    ([_USER, "{not json"], 2, ""),
    ([_USER, _CALL.replace('"tool_calls"', '"calls"')], 2, "tool_calls"),
    ([_USER, _CALL.replace('\\"command\\": \\"ls\\"', "oops")], 2, "arguments"),
    ([_USER, _CALL, _RESULT.replace('"k1"', '"nobody"')], 3, "tool_call_id"),
    ([_USER, _CALL.replace('"turn": 2', '"turn": 5')], 2, "turn"),
])
def test_malformed_mlperf_jsonl_names_the_line(
    tmp_path: Path, lines: list[str], line_no: int, needle: str, reliability
) -> None:
    reliability("bad_input", tried=1)
    data = tmp_path / "bad.jsonl"
    data.write_text("\n".join(lines) + "\n")
    code, text = _cli(["replay", str(data), "--out", str(tmp_path / "runs")])
    _one_clear_line(code, text, f"{data}:{line_no}", needle)
    assert not _runs(tmp_path / "runs")  # failed before a model was loaded or a run made
    reliability("bad_input", clear_error=1)
