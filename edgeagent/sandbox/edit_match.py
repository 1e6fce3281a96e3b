"""Where an edit's `old` text is in a file, forgiving the two slips small models make.

A 0.5B model copying lines from read_file's output often keeps the `N| ` line-number
prefixes or gets the indentation wrong (measured on the core easy tier: every failed edit was
one of these, or an `old` that named no line at all). An exact match is always tried first;
the forgiving matches apply only when they pick out exactly one place, and say what they did,
as aider's and SWE-agent's edit tools do. When nothing matches, `closest_lines` gives the
model the file's real text to copy from.
"""

from __future__ import annotations

import difflib
import re
import time
from dataclasses import dataclass

_NUMBERED = re.compile(r"^\s*\d+\| ?")
_CLOSEST_MAX_WIDTH = 200  # lines of `old` compared: enough to place it
_CLOSEST_CONTEXT = 2  # lines shown either side of the closest window


@dataclass(frozen=True)
class Match:
    start: int  # character offsets in the file's text
    end: int
    new: str  # the replacement, with prefixes removed or indentation carried over
    note: str | None  # what was forgiven, for the observation; None for an exact match


def strip_line_numbers(text: str) -> str | None:
    """`text` without read_file's `N| ` prefixes, or None when not every line has one."""
    lines = text.split("\n")
    if not all(_NUMBERED.match(line) for line in lines if line.strip()):
        return None
    return "\n".join(_NUMBERED.sub("", line, count=1) for line in lines)


def find(text: str, old: str, new: str) -> Match | int:
    """The one place `old` stands in `text`, or how many places it matched (0 or 2+)."""
    count = text.count(old)
    if count == 1:
        at = text.index(old)
        return Match(at, at + len(old), new, None)
    if count > 1:
        return count
    bare_old = strip_line_numbers(old)
    if bare_old is not None and bare_old != old:
        bare_new = strip_line_numbers(new)
        found = find(text, bare_old, new if bare_new is None else bare_new)
        if isinstance(found, Match):
            note = "removed the 'N| ' line-number prefixes"
            return Match(found.start, found.end, found.new,
                         note if found.note is None else f"{note}; {found.note}")
        return found
    return _find_reindented(text, old, new)


def _find_reindented(text: str, old: str, new: str) -> Match | int:
    """A unique run of whole lines equal to `old`'s once leading whitespace is ignored. Each
    line of `new` takes the file's indentation in place of `old`'s on the same line (the
    last line's, for lines past the end of `old`)."""
    old_lines = old.strip("\n").split("\n")
    keys = [line.strip() for line in old_lines]
    if not any(keys):
        return 0
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    hits = [
        i for i in range(len(lines) - len(keys) + 1)
        if all(lines[i + j].strip() == key for j, key in enumerate(keys))
    ]
    if len(hits) != 1:
        return len(hits)
    i = hits[0]
    new_lines = []
    for j, line in enumerate(new.strip("\n").split("\n")):
        k = min(j, len(keys) - 1)
        have, wrote = _indent(lines[i + k]), _indent(old_lines[k])
        if line.strip() and line.startswith(wrote):
            line = have + line[len(wrote):]
        new_lines.append(line)
    end = offsets[i + len(keys)] - 1  # the last line's end, before its newline
    if lines[i + len(keys) - 1].endswith("\r"):
        end -= 1  # a CRLF file keeps its line ending
    return Match(offsets[i], end, "\n".join(new_lines), "matched ignoring indentation")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def closest_lines(text: str, old: str, limit: int = 12, budget_s: float = 2.0) -> str | None:
    """The file's lines nearest to `old` (numbered as read_file numbers them), or None when
    nothing is even loosely similar. Runs in the agent's process, so within budget_s: on a
    huge file the best match found by then is shown (a hint, not a promise)."""
    bare = strip_line_numbers(old) or old
    wanted = [line.strip() for line in bare.strip("\n").split("\n")]
    lines = text.split("\n")
    if not lines or not any(wanted):
        return None
    width = min(len(wanted), len(lines), _CLOSEST_MAX_WIDTH)
    probe = "\n".join(wanted[:width])
    deadline = time.monotonic() + budget_s
    best, best_at = 0.0, 0
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(probe)
    for i in range(len(lines) - width + 1):
        if time.monotonic() > deadline:
            break
        matcher.set_seq1("\n".join(line.strip() for line in lines[i:i + width]))
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        ratio = matcher.ratio()
        if ratio > best:
            best, best_at = ratio, i
    if best < 0.5:
        return None
    first = max(0, best_at - _CLOSEST_CONTEXT)
    last = min(len(lines), best_at + width + _CLOSEST_CONTEXT, first + limit)
    return "\n".join(f"{n + 1}| {lines[n]}" for n in range(first, last))
