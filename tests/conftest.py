"""Shared fixtures: the tiny random-weight GGUF that keeps engine tests fast, and a directory
outside the sandbox for escape tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

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


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ~0.6 MB llama GGUF with a ChatML template, built once per test session."""
    out = tmp_path_factory.mktemp("tiny_model") / "tiny-random-llama.gguf"
    return _load_make_tiny_model().write_tiny_model(out, seed=0)


@pytest.fixture(scope="session")
def tiny_tools_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny model with Qwen2.5-Coder's own chat template (native tools) and its
    `<tool_call>` markers as single user-defined tokens, as in Qwen's vocabulary."""
    out = tmp_path_factory.mktemp("tiny_tools_model") / "tiny-random-qwen-tools.gguf"
    return _load_make_tiny_model().write_tiny_model(
        out, seed=0, chat_template=_QWEN_TEMPLATE.read_text(), tools=True)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace that sandboxed tools must never reach."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text("secret\n")
    return d
