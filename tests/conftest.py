"""Shared fixtures: the tiny random-weight GGUF that keeps engine tests fast, and a directory
outside the sandbox for escape tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_TOOL = Path(__file__).resolve().parents[1] / "tools" / "make_tiny_model.py"


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


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace that sandboxed tools must never reach."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.txt").write_text("secret\n")
    return d
