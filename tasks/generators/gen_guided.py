"""Write the `guided` tasks of `core`: easy tasks whose issue opens with the fix.

Each graded easy task named below gets a guided twin, `g-<id>`: the same repository, hidden
tests, oracle and limits, and the same issue opened by the reporter's suggested change,
``Replace `OLD` with `NEW` in PATH.`` (OLD and NEW from the oracle's one `edit`). Such an
issue hands over the edit, so the twin checks the loop's mechanics (read, edit, test,
submit) rather than an agent's diagnosis: it has `tier: guided` and every report keeps it
apart from the graded tiers (docs/tasks.md, "Tiers").

Deterministic. Usage (rewrites tasks/core/g-*/ from the graded tasks):
    python tasks/generators/gen_guided.py [TASKS_CORE_DIR]   (default: tasks/core)
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import yaml

GRADED = (
    "a01-fahrenheit-conversion", "a02-slugify-lowercase", "a03-page-count-off-by-one",
    "a04-wordfreq-ignore-case-flag", "a05-inventory-failing-test",
    "a06-retry-backoff-exponent", "b01-colorconv-hex-padding", "b02-isbn-check-digit-x",
    "b03-roman-lowercase-from-readme", "b04-colpick-delimiter-option",
    "c01-sizefmt-mib-divisor", "c02-textcols-center-odd-width",
    "c03-caldays-leap-centuries", "c04-splitbill-extra-cent",
)
PREFIX = "g-"
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc")


def the_edit(oracle: list[dict]) -> dict:
    edits = [s["args"] for s in oracle if s["tool"] == "edit"]
    if len(edits) != 1 or "\n" in edits[0]["old"].strip() or "\n" in edits[0]["new"].strip():
        raise SystemExit("a guided twin needs an oracle with exactly one one-line edit")
    return edits[0]


def guided_task_yaml(text: str, guided_id: str, edit: dict) -> str:
    """The graded task.yaml with a new id, tier guided, and the fix as the issue's opening."""
    lines = text.splitlines()
    out: list[str] = []
    for line in lines:
        if line.startswith("id: "):
            out.append(f"id: {guided_id}")
        elif line.startswith("tier: "):
            out.append("tier: guided")
        elif line == "issue: |":
            out.append(line)
            old, new = edit["old"].strip(), edit["new"].strip()
            out.append(f"  Replace `{old}` with `{new}` in {edit['path']}.")
            out.append("")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def write_guided(core: Path) -> list[str]:
    for old in core.glob(PREFIX + "*"):
        shutil.rmtree(old)
    written = []
    for task_id in GRADED:
        src, dst = core / task_id, core / (PREFIX + task_id)
        oracle = yaml.safe_load((src / "oracle.yaml").read_text())
        shutil.copytree(src / "repo", dst / "repo", ignore=_IGNORED)
        shutil.copytree(src / "hidden_tests", dst / "hidden_tests", ignore=_IGNORED)
        shutil.copy2(src / "oracle.yaml", dst / "oracle.yaml")
        task_yaml = guided_task_yaml((src / "task.yaml").read_text(), dst.name,
                                     the_edit(oracle))
        (dst / "task.yaml").write_text(task_yaml)
        written.append(dst.name)
    return written


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "core"
    names = write_guided(root)
    print(f"{len(names)} guided tasks written to {root}")
