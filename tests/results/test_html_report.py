"""`edgeagent report RUN --format html` as a reader sees it (issue 20, item 10): numbers
right-aligned on one line, no empty plot panels, whole step numbers on the context plot's
axis, a caption under every figure, the metric definitions one click away."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import ROOT
from run_fixture import default_tasks, provenance, replace_task, write_run

from edgeagent import cli


def report(run_dir: Path, out: Path) -> str:
    assert cli.main(["report", str(run_dir), "--format", "html", "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def metered(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("html")
    return report(write_run(tmp / "run"), tmp / "r.html")


@pytest.fixture(scope="module")
def unmetered(tmp_path_factory: pytest.TempPathFactory) -> str:
    tmp = tmp_path_factory.mktemp("html-nopower")
    tasks = [(replace_task(t, energy_j=None, energy_null_reason="no power source found"), s)
             for t, s in default_tasks()]
    return report(write_run(tmp / "run", tasks, prov=provenance(sensor=False)), tmp / "r.html")


def figure(html: str, name: str) -> str:
    m = re.search(rf'<figure id="plot-{name}">(.*?)</figure>', html, re.S)
    assert m, name
    return m.group(1)


def test_numbers_are_right_aligned_and_never_wrap(metered: str) -> None:
    row = re.search(r"<tr><td>completed tasks per hour</td>(<td[^>]*>)([^<]*)</td>", metered)
    assert row, "the metric row"
    assert row.group(1) == '<td class="n">' and row.group(2).endswith(" tasks/h")
    rule = re.search(r"td\.n,th\.n\{([^}]*)\}", metered)
    assert rule and "text-align:right" in rule.group(1) and "white-space:nowrap" in rule.group(1)
    # the task table too: steps, wall time and energy are numbers
    tasks = metered[metered.index("<h2>Tasks</h2>"):metered.index("<h2>Plots</h2>")]
    assert '<th class="n">steps</th>' in tasks and '<td class="n">8.0</td>' in tasks
    assert "<td>a</td>" in tasks  # a task id stays text


def test_no_empty_plot_panels_when_energy_is_not_measured(metered: str,
                                                          unmetered: str) -> None:
    for name in ("power", "energy"):
        assert f'id="plot-{name}"' in metered
        assert f'id="plot-{name}"' not in unmetered
    note = re.search(r'<p class="note">not plotted: ([^<]*)</p>', unmetered)
    assert note and "power (energy not measured" in note.group(1)
    assert "energy (energy not measured" in note.group(1)
    assert "not plotted" not in metered
    for name in ("context", "step_latency", "prefill"):
        assert f'id="plot-{name}"' in unmetered


def test_context_plot_ticks_are_whole_steps(metered: str) -> None:
    svg = figure(metered, "context")
    ticks = re.findall(r'<g id="xtick_\d+">.*?<!-- (.*?) -->', svg, re.S)
    assert ticks, "the x axis has tick labels"
    assert all(re.fullmatch(r"\d+", t) for t in ticks), ticks


def test_every_figure_has_a_numbered_caption(metered: str) -> None:
    figures = re.findall(r"<figure .*?</figure>", metered, re.S)
    assert len(figures) == 5
    for i, fig in enumerate(figures, 1):
        caption = re.search(r"<figcaption><b>Figure (\d+)\.</b> ([^<]{20,})</figcaption>", fig)
        assert caption and int(caption.group(1)) == i


def test_metric_definitions_are_a_link(metered: str) -> None:
    assert '<a href="#definitions">docs/metrics.md</a>' in metered
    defs = re.search(r'<details id="definitions">.*?<pre class="defs">(.*?)</pre>', metered,
                     re.S)
    first = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8").splitlines()[0]
    assert defs and first in defs.group(1)


def test_report_infers_the_format_from_the_output_suffix(tmp_path: Path) -> None:
    """`report RUN -o r.html` without --format writes HTML (it wrote plain text into the
    .html file); -o r.md writes markdown; --format still wins."""
    from run_fixture import write_run

    from edgeagent import cli

    run_dir = write_run(tmp_path / "run")
    html_out, md_out, forced = tmp_path / "r.html", tmp_path / "r.md", tmp_path / "f.html"
    assert cli.main(["report", str(run_dir), "-o", str(html_out)]) == 0
    assert html_out.read_text().lstrip().lower().startswith("<!doctype html>")
    assert cli.main(["report", str(run_dir), "-o", str(md_out)]) == 0
    assert md_out.read_text().lstrip().startswith("#") or "|" in md_out.read_text()
    assert cli.main(["report", str(run_dir), "--format", "text", "-o", str(forced)]) == 0
    assert not forced.read_text().lstrip().lower().startswith("<!doctype")
