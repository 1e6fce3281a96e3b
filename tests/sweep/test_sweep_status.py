"""sweep.json's status ends as a run's does (ended_status): a second Ctrl-C is `interrupted`,
anything else raised `failed`, saved however the sweep ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeagent.sweep import SweepIndex, sweep_running


@pytest.mark.parametrize(("raised", "status"), [
    (None, "complete"), (KeyboardInterrupt, "interrupted"), (RuntimeError, "failed")])
def test_sweep_json_status_ends_as_a_run_does(tmp_path: Path, raised, status) -> None:
    index = SweepIndex(tmp_path, {"configurations": []})
    try:
        with sweep_running(index):
            assert json.loads((tmp_path / "sweep.json").read_text())["status"] == "running"
            index.status = "complete"
            if raised is not None:
                raise raised
    except BaseException as exc:  # noqa: BLE001 - what the block raised goes on
        assert raised is not None and isinstance(exc, raised)
    assert json.loads((tmp_path / "sweep.json").read_text())["status"] == status
