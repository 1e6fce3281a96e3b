"""Repair drafts: after a whole-file draft fails the visible tests, the model is shown the
issue, the file as it drafted it and what the tests said (the failing assertions first,
trimmed to fit) and answers with the corrected whole file again (strategy `repair`, greedy;
`mix` samples it). Strategy `sample` asks the draft's own prompt again, sampled and seeded,
after any draft that was not kept (one that changed no line included). Each round is
written and tested like the draft (draft.apply_draft): the first that passes is kept and
the task submitted; one that fails is put back byte for byte.

Why: on one-line bugs with the 1.5B model, 11 of the loop's 12 fixes came from the draft at
step 0; after a failed draft the loop, which knew nothing of the draft or of the tests'
output, fixed 1 of 23. The tests' own output (which line, which input, which value) is the
best evidence the model gets, and it is only the visible tests': the hidden ones never run
before the task is submitted.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine import Message
from .whole_file import SYSTEM_PROMPT, language_of

# how much of the tests' output a repair prompt carries (the file itself comes on top)
FEEDBACK_TOKENS = 768
# the temperature of sampled rounds (--repair-strategy sample|mix), each seeded by its round's
# number: where a greedy model repeats itself, a sampled one answers differently; 0.8 as
# Agentless samples its candidate patches
SAMPLED_DRAFT_TEMPERATURE = 0.8
# lines that say what failed: unittest's FAIL/ERROR heads and AssertionError lines, pytest's
# `E   ` lines and FAILED summary, any Error or Exception line
_FAILURE = re.compile(r"^(FAIL|ERROR|FAILED)\b|^E\s|Error\b|Exception\b|\bassert",
                      re.IGNORECASE)
_MESSAGE = re.compile(r"^(\w+Error|\w+Exception|E\s)")


def failing_first(output: str) -> str:
    """The tests' output with the lines that say what failed first (each with the line
    before it, usually the code that failed), then the whole output as it came."""
    lines = output.splitlines()
    picked: list[str] = []
    for i, line in enumerate(lines):
        if _FAILURE.search(line.strip()):
            for j in (i - 1, i):
                if j >= 0 and lines[j] not in picked and lines[j].strip():
                    picked.append(lines[j])
    if not picked:
        return output
    return "What failed:\n" + "\n".join(picked) + "\n\nThe whole output:\n" + output


def repair_prompt(rel: str, drafted: str, title: str, issue: str,
                  feedback: str) -> list[Message]:
    """The issue, the file as drafted and the tests' output on it; the same system prompt
    and answer format as the draft's (whole_file.whole_file_prompt)."""
    language = language_of(rel)
    user = (f"Fix this issue by changing {rel}.\n\n# Issue: {title}\n\n{issue.strip()}\n\n"
            f"# Your previous {rel}\n\n```{language}\n{drafted}\n```\n\n"
            f"# The tests fail on it\n\n```\n{feedback.strip()}\n```\n\n"
            f"Answer with the complete corrected {rel} in one fenced code block, and "
            "nothing else.")
    return [Message("system", SYSTEM_PROMPT), Message("user", user)]


def tried_note(rel: str, drafts: int, last_failure: str | None) -> str:
    """The one line the loop's conversation gets after the last repair round was not kept;
    `last_failure`: the visible tests' output on the last draft they ran on (None: no draft
    changed the file)."""
    if last_failure is None:
        return (f"Note: {drafts} whole-file rewrites of {rel} were tried; none changed a "
                "line of it.")
    lines = [line.strip() for line in last_failure.splitlines() if line.strip()]
    # the assertion's own message says most (which value), then the failing test's name
    first = next((line for line in lines if _MESSAGE.search(line)),
                 next((line for line in lines if _FAILURE.search(line)), "no output"))
    return (f"Note: {drafts} whole-file rewrites of {rel} were tried and put back; the "
            f"visible tests failed on each (last: {first[:200]}).")


def repair_provenance(rounds: int, strategy: str) -> dict[str, Any] | None:
    """What `rounds` repair rounds of `strategy` ask and how they decode, for provenance;
    None when there are none."""
    if not rounds:
        return None
    asks = {"repair": "the drafted file and the visible tests' output, failing lines first",
            "sample": "the draft's own prompt again",
            "mix": "the drafted file and the visible tests' output (the draft's prompt while "
                   "no draft was tested)"}[strategy]
    decoding = (f"sampled at temperature {SAMPLED_DRAFT_TEMPERATURE:g}, seed = the round's "
                "number" if strategy != "repair" else "greedy")
    return {"rounds": rounds, "strategy": strategy, "asks": asks, "decoding": decoding}
