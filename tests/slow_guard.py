"""The `slow` marker kept honest: a test that starts a process or loads model weights through
llama.cpp, itself or in the setup of a fixture it uses, must carry it, so
`python -m pytest -q -m "not slow"` stays a loop of a few minutes.

An unmarked test that does either fails with what it did and the fix. With
EDGEAGENT_SLOW_RECORD=FILE set, such tests pass and are appended to FILE instead (how the
markers were first placed). Tests that use a fixture named in SLOW_FIXTURES are marked at
collection: the fixture does the slow work once for all of them."""

from __future__ import annotations

import os
import subprocess
from typing import Any

import pytest

RECORD_ENV = "EDGEAGENT_SLOW_RECORD"
# shared fixtures whose setup starts processes: every test that uses one is slow
SLOW_FIXTURES = frozenset({"tiny_sweep"})


class SlowWork:
    """What the current test (and the fixtures set up for it) did that is slow."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.fixtures: list[str] = []

    def note(self, what: str) -> None:
        where = f" in fixture {self.fixtures[-1]}" if self.fixtures else ""
        self.seen.append(what + where)


WORK = SlowWork()


def _llama_class() -> Any:
    try:
        import llama_cpp
    except ImportError:  # an environment without the engine: no model can load
        return None
    return llama_cpp.Llama


def install(work: SlowWork = WORK) -> None:
    """Make process starts and model loads note themselves in `work` (for the session)."""
    popen_init = subprocess.Popen.__init__

    def noting_popen(self: subprocess.Popen, args: Any, *rest: Any, **kwargs: Any) -> None:
        work.note(f"starts a process ({str(args)[:60]})")
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = noting_popen  # type: ignore[method-assign]
    llama = _llama_class()
    if llama is None:
        return
    llama_init = llama.__init__

    def noting_llama(self: Any, *args: Any, **kwargs: Any) -> None:
        # a vocab_only load reads the tokenizer alone: no weights, milliseconds
        if not kwargs.get("vocab_only"):
            work.note(f"loads a model ({kwargs.get('model_path', '?')})")
        llama_init(self, *args, **kwargs)

    llama.__init__ = noting_llama


def mark_slow_fixture_users(items: list[pytest.Item]) -> None:
    for item in items:
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def begin(work: SlowWork = WORK) -> None:
    work.seen.clear()


def check(item: pytest.Item, work: SlowWork = WORK) -> None:
    """After a test's teardown: fail it (or record it) if it did slow work unmarked."""
    if not work.seen or item.get_closest_marker("slow") is not None:
        return
    record = os.environ.get(RECORD_ENV)
    if record:
        with open(record, "a", encoding="utf-8") as f:
            f.write(f"{item.nodeid}\t{work.seen[0]}\n")
        return
    pytest.fail(f"{item.nodeid} {work.seen[0]}: mark it @pytest.mark.slow "
                "(tests/slow_guard.py)", pytrace=False)
