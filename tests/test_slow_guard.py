"""The guard of the `slow` marker fires: an unmarked test that starts a process or loads a
model fails with what it did (naming the fixture that did it); a vocab_only load, a marked
test and a test that did neither pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import llama_cpp
import pytest
import slow_guard


def _item(marked: bool, fixtures: tuple[str, ...] = ()) -> SimpleNamespace:
    marks: list[object] = [object()] if marked else []
    return SimpleNamespace(nodeid="tests/test_probe.py::test_probe", fixturenames=fixtures,
                           get_closest_marker=lambda name: marks[0] if marks else None,
                           add_marker=marks.append)


def _start_a_process() -> None:
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.fixture(autouse=True)
def _failing_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    # these tests check the guard's verdicts, not a recording session's
    monkeypatch.delenv(slow_guard.RECORD_ENV, raising=False)


@pytest.mark.slow
def test_an_unmarked_test_that_starts_a_process_fails() -> None:
    slow_guard.begin()
    slow_guard.check(_item(False))  # nothing slow yet: passes
    _start_a_process()
    slow_guard.check(_item(True))  # marked: passes
    with pytest.raises(pytest.fail.Exception, match="starts a process.*mark it"):
        slow_guard.check(_item(False))


@pytest.mark.slow
def test_a_fixture_that_starts_a_process_is_named() -> None:
    slow_guard.begin()
    slow_guard.WORK.fixtures.append("served")
    try:
        _start_a_process()
    finally:
        slow_guard.WORK.fixtures.pop()
    with pytest.raises(pytest.fail.Exception, match="in fixture served"):
        slow_guard.check(_item(False))


@pytest.mark.slow
def test_a_model_load_is_slow_and_a_vocabulary_is_not(tiny_model_path: Path) -> None:
    slow_guard.begin()
    llama_cpp.Llama(model_path=str(tiny_model_path), vocab_only=True, verbose=False)
    slow_guard.check(_item(False))
    llama_cpp.Llama(model_path=str(tiny_model_path), n_ctx=64, verbose=False)
    with pytest.raises(pytest.fail.Exception, match="loads a model"):
        slow_guard.check(_item(False))


@pytest.mark.slow
def test_recording_mode_writes_the_test_instead_of_failing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "slow.txt"
    monkeypatch.setenv(slow_guard.RECORD_ENV, str(record))
    slow_guard.begin()
    _start_a_process()
    slow_guard.check(_item(False))
    assert record.read_text().startswith("tests/test_probe.py::test_probe\tstarts a process")


def test_users_of_a_slow_fixture_are_marked_at_collection() -> None:
    user, other = _item(False, ("tmp_path", "tiny_sweep")), _item(False, ("tmp_path",))
    slow_guard.mark_slow_fixture_users([user, other])  # type: ignore[list-item]
    assert user.get_closest_marker("slow") is not None
    assert other.get_closest_marker("slow") is None
