"""Whether a task's issue hands over its oracle's edit.

A graded task (easy, medium, hard) describes a problem the way a user reports it; an issue
that quotes the code the fix writes measures whether the agent can copy, not whether it can
find and fix a bug. The check looks at each oracle `edit`: every span of `new` that differs
from `old` (a character diff), widened by the text around it on its line, must not appear
in the issue when it is at least MIN_CHARS long. `Replace `x * 9 / 5` with `x * 5 / 9``
is caught, and so is a quoted fragment (`2 ** attempt`). Names alone are not (`RATES`,
`tax_cents(net_cents, category)`: only names, dots, commas and brackets): a feature or
refactor request names the function, signature or option it asks for.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from .schema import GRADED_TIERS, OracleStep, Task

MIN_CHARS = 8  # shorter fragments ("< 0", "+ 1") occur in issues by chance
_CONTEXT = 60  # characters of the same line on each side of a changed span
_NAMES_ONLY = re.compile(r"^[\w.,()\[\] ]+$")


def quoted_replacement(old: str, new: str, issue: str) -> str | None:
    """The longest text of `issue` that covers a whole changed span of `new`, or None."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue  # a deletion is a change too: the text around where it was
        lo = max(new.rfind("\n", 0, j1) + 1, j1 - _CONTEXT)
        end = new.find("\n", j2)
        hi = min(j2 + _CONTEXT, end if end != -1 else len(new))
        for i in range(lo, j1 + 1):
            for j in range(hi, max(j2, i + MIN_CHARS) - 1, -1):
                text = new[i:j].strip()
                if len(text) >= MIN_CHARS and not _NAMES_ONLY.match(text) and text in issue:
                    return text
    return None


def fix_stated_in_issue(task: Task, steps: Sequence[OracleStep]) -> str | None:
    """The problem when a graded task's issue quotes its oracle's replacement text, else
    None. A guided task (or one without a tier) may state its fix."""
    if task.tier not in GRADED_TIERS:
        return None
    for n, step in enumerate(steps, start=1):
        old, new = step.args.get("old"), step.args.get("new")
        if step.tool != "edit" or not isinstance(old, str) or not isinstance(new, str):
            continue
        quoted = quoted_replacement(old, new, task.issue)
        if quoted is not None:
            return (f"the issue quotes oracle step {n}'s replacement text {quoted!r}: a "
                    f"{task.tier} task describes the problem, not the edit (rewrite the "
                    "issue, or make it tier: guided)")
    return None
