"""Tiers that mean something: no graded task's issue quotes the text its oracle's edit
writes (the guided tier may), the guided twins are the graded tasks plus the fix, and the
tollgate tasks need evidence from several large files."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

from edgeagent.suite import (
    GRADED_TIERS,
    GUIDED_TIER,
    bundled_suite_names,
    fix_stated_in_issue,
    load_oracle,
    load_suite,
    quoted_replacement,
)


def test_no_graded_issue_quotes_its_oracle_replacement() -> None:
    graded = 0
    for name in bundled_suite_names():
        for task in load_suite(name).tasks:
            if task.tier in GRADED_TIERS:
                graded += 1
                assert fix_stated_in_issue(task, load_oracle(task)) is None, task.id
    assert graded >= 34  # the check ran over the graded core tasks


def test_the_check_finds_a_stated_fix_and_spares_names() -> None:
    old, new = "return (f - 32) * 9 / 5", "return (f - 32) * 5 / 9"
    assert quoted_replacement(old, new, f"Replace `{old}` with `{new}` in t.py.") == new
    # a fragment around the change counts too; describing the symptom does not
    assert quoted_replacement("base * 2 * n", "base * 2 ** n", "use base * 2 ** n") == (
        "base * 2 ** n")
    assert quoted_replacement(old, new, "f_to_c(212) returns 324.0, expected 100.0") is None
    # a refactor request names the function it wants: names alone are not the edit
    assert quoted_replacement("x = _vat(net, cat)", "x = tax_cents(net, cat)",
                              "add `tax_cents(net, cat)` in tax.py") is None


def test_guided_tasks_state_the_fix_and_are_kept_apart() -> None:
    core = {t.id: t for t in load_suite("core").tasks}
    guided = [t for t in core.values() if t.tier == GUIDED_TIER]
    assert len(guided) == 14
    for task in guided:
        twin = core[task.id.removeprefix("g-")]
        assert twin.tier in GRADED_TIERS
        assert task.issue.startswith("Replace `") and task.issue.endswith(twin.issue)
        assert fix_stated_in_issue(task, load_oracle(task)) is None  # guided may state it
        as_graded = dataclasses.replace(task, tier=twin.tier)
        assert fix_stated_in_issue(as_graded, load_oracle(task)) is not None  # refused there
    assert all(t.tier == GUIDED_TIER for t in load_suite("smoke").tasks)


@pytest.mark.slow
def test_regenerating_the_guided_tasks_changes_nothing(tmp_path: Path) -> None:
    copy = tmp_path / "core"
    shutil.copytree(ROOT / "tasks" / "core", copy,
                    ignore=shutil.ignore_patterns("__pycache__", "d0*", "b1[345]*", "a1[2345]*"))
    before = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("g-*/**/*")
              if p.is_file()}
    subprocess.run([sys.executable, str(ROOT / "tasks" / "generators" / "gen_guided.py"),
                    str(copy)], check=True, capture_output=True)
    after = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("g-*/**/*") if p.is_file()}
    assert after == before


def test_tollgate_tasks_need_several_large_files() -> None:
    tasks = [t for t in load_suite("core").tasks if "-tollgate-" in t.id]
    assert len(tasks) == 8
    assert {t.tier for t in tasks} == {"medium", "hard"}
    for task in tasks:
        sizes = {p: len((task.repo_dir / p).read_text().splitlines())
                 for p in ("tollgate/plazas.py", "tollgate/tariffs.py", "docs/tariff-spec.md")}
        assert min(sizes.values()) >= 200, (task.id, sizes)
        # the oracle reads the register, the tariff tables and the published tariff
        read = {s.args.get("path") for s in load_oracle(task) if s.tool == "read_file"}
        assert set(sizes) <= read, task.id
