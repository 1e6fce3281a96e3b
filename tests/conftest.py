"""Shared fixtures: the tiny random-weight GGUF that keeps engine tests fast, a directory
outside the sandbox for escape tests, and the guard of the `slow` marker (slow_guard.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import slow_guard

_TOOL = Path(__file__).resolve().parents[1] / "tools" / "make_tiny_model.py"
_QWEN_TEMPLATE = Path(__file__).resolve().parent / "fixtures" / "templates" / (
    "qwen2.5-coder-instruct.jinja")


def _load_make_tiny_model():
    # tools/ is a folder of scripts, not a package, so it is imported by file path.
    spec = importlib.util.spec_from_file_location("make_tiny_model", _TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


slow_guard.install()


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    slow_guard.mark_slow_fixture_users(items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    slow_guard.begin()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
    slow_guard.WORK.fixtures.append(fixturedef.argname)
    try:
        return (yield)
    finally:
        slow_guard.WORK.fixtures.pop()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    # checked once the fixtures are torn down, so a failure leaves nothing behind
    result = yield
    slow_guard.check(item)
    return result


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ~0.6 MB llama GGUF with a ChatML template, built once per test session."""
    out = tmp_path_factory.mktemp("tiny_model") / "tiny-random-llama.gguf"
    return _load_make_tiny_model().write_tiny_model(out, seed=0)


@pytest.fixture(scope="session")
def tiny_kv_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with heads of 32 values: quantized KV caches (q8_0, q4_0) need whole
    blocks of 32 per head, which the default tiny model's heads of 16 are not."""
    out = tmp_path_factory.mktemp("tiny_kv_model") / "tiny-random-llama-hd32.gguf"
    return _load_make_tiny_model().write_tiny_model(out, seed=0, n_head=2)


# the sweep the sweep, compare and browser tests read: 2 configurations x 2 repeats
SWEEP_FLAGS = ("--threads", "1", "--flash-attn", "1", "--kv-type", "f16,q8_0",
               "--repeats", "2", "--conversations", "1", "--max-new-tokens", "4",
               "--n-ctx", "2048")


@pytest.fixture(scope="session")
def tiny_sweep(tiny_kv_model_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished `edgeagent sweep` directory on the tiny model (each run a child process)."""
    import contextlib
    import io

    from edgeagent import cli

    out = tmp_path_factory.mktemp("sweep")
    with contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(["sweep", "--model", str(tiny_kv_model_path), *SWEEP_FLAGS,
                         "--out", str(out)])
    assert code == 0
    (sweep_dir,) = out.iterdir()
    return sweep_dir


@pytest.fixture(scope="session")
def tiny_tools_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with Qwen2.5-Coder's own chat template (native tools) and its
    `<tool_call>` markers as single user-defined tokens, as in Qwen's vocabulary."""
    out = tmp_path_factory.mktemp("tiny_tools_model") / "tiny-random-qwen-tools.gguf"
    return _load_make_tiny_model().write_tiny_model(
        out, seed=0, chat_template=_QWEN_TEMPLATE.read_text(), tools=True)


@pytest.fixture(scope="session")
def tiny_tools_long_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Qwen-template tiny model declaring an 8k training context: llama-server caps its
    context there, and the tiny vocabulary spells a native prompt out in ~4k tokens."""
    out = tmp_path_factory.mktemp("tiny_tools_long_model") / "tiny-random-qwen-tools-8k.gguf"
    return _load_make_tiny_model().write_tiny_model(
        out, seed=0, chat_template=_QWEN_TEMPLATE.read_text(), tools=True, n_ctx_train=8192)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace that sandboxed tools must never reach."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text("secret\n")
    return d
