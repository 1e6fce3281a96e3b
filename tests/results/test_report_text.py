"""The report reads a run once and hands the one load to every part (issue 30): the text
head from a loaded run is the head from its directory, every format loads the run a single
time, and reading a run needs neither the doctor nor (for html) the formats module back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from paths import ROOT
from run_fixture import write_run

from edgeagent.results import formats
from edgeagent.results.metrics import load_run
from edgeagent.results.report import render_report, report_text


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run(tmp_path_factory.mktemp("report") / "run")


def test_the_head_from_a_loaded_run_is_the_head_from_its_directory(run_dir: Path) -> None:
    head = report_text(load_run(run_dir))
    assert head == render_report(run_dir)
    assert formats.render(run_dir, "text").startswith(head + "\n")
    assert "by phase: prefill 34.0 J (9.71 W), decode 40.0 J (10.00 W)" in head


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_every_format_loads_the_run_once(run_dir: Path, fmt: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    loads: list[Path] = []

    def counted(path: Path):
        loads.append(path)
        return load_run(path)

    monkeypatch.setattr(formats, "load_run", counted)
    formats.render(run_dir, fmt)
    assert loads == [run_dir]


def test_a_run_that_never_started_says_so(tmp_path: Path) -> None:
    from edgeagent.rundir import RunStore

    RunStore(tmp_path, {"suite": "s"}).close()
    assert render_report(tmp_path) == f"{tmp_path}: the run never started (no run record)"


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_results_never_import_the_doctor_and_html_not_formats() -> None:
    results = ROOT / "edgeagent" / "results"
    for path in results.glob("*.py"):
        assert not {n for n in _imported(path) if n.endswith("doctor")}, path.name
    assert ".formats" not in _imported(results / "html.py")
