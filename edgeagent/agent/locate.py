"""The one source file an issue is about when it names none: the only file that defines the
functions, classes or methods the issue names.

Real bug reports name what misbehaves (`parse_duration("2d")`, `ledger.report.monthly_report`,
a failing `test_total_value`) more often than the file it lives in. A name counts when it is
in backticks, called (`name(`), dotted, or snake_case; a test's name counts without its
`test_` prefix (test_total_value tests total_value); an exception's (ValueError, a
project's ValidationError) does not count. The file is found only when every name
that is defined anywhere is defined in that one file: a name defined in several files, or
names spread over several files, find none, and the loop searches as before.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"(?<![\w.]){_WORD}(?:\.{_WORD})*")
_CALLED = re.compile(rf"({_WORD}(?:\.{_WORD})*)\s*\(")
_SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
# definitions in the common languages: Python, JavaScript/TypeScript, Go (with a receiver),
# Rust, Ruby, Kotlin/Swift
_DEFINES = re.compile(
    rf"^[ \t]*(?:export[ \t]+)?(?:pub(?:\([a-z]+\))?[ \t]+)?(?:async[ \t]+)?"
    rf"(?:def|class|function|func(?:[ \t]*\([^)]*\))?|fn|fun|struct|interface)[ \t]+({_WORD})",
    re.MULTILINE)
_RAISED = ("Error", "Exception", "Warning")
_MIN_NAME = 3  # shorter names (id, x) say nothing about where the bug is
_MAX_FILE_BYTES = 512 * 1024


def named_identifiers(issue: str) -> set[str]:
    """The function, class and method names an issue mentions (parts of dotted names too)."""
    names: set[str] = set()
    for quoted in _BACKTICKED.findall(issue):
        names.update(_DOTTED.findall(quoted))
    names.update(_CALLED.findall(issue))
    names.update(_SNAKE.findall(issue))
    names.update(m for m in _DOTTED.findall(issue) if "." in m and not _is_file_name(m))
    out = set()
    for name in names:
        for part in name.split("."):
            part = part.removeprefix("test_")
            # an exception an issue quotes is what was raised, seldom where the bug is
            if len(part) >= _MIN_NAME and not part.endswith(_RAISED):
                out.add(part)
    return out


def _is_file_name(dotted: str) -> bool:
    return dotted.rsplit(".", 1)[-1] in ("py", "js", "ts", "go", "rs", "rb", "md", "txt",
                                         "json", "yaml", "yml", "toml", "cfg", "ini")


def defining_file(root: Path, sources: list[str], issue: str) -> tuple[str | None, str]:
    """(the one file among sources that defines what the issue names, the names) or
    (None, why there is none)."""
    wanted = named_identifiers(issue)
    if not wanted:
        return None, "the issue names no function or class either"
    found: dict[str, set[str]] = {}
    for rel in sources:
        defined = _definitions(root / rel) & wanted
        if defined:
            found[rel] = defined
    if len(found) == 1:
        ((rel, names),) = found.items()
        return rel, ", ".join(sorted(names))
    if not found:
        return None, "no source file defines a name the issue mentions"
    return None, f"what the issue names is defined in {len(found)} files"


def _definitions(path: Path) -> set[str]:
    """The names a regular file defines; a symlink is not followed (it may lead out of the
    workspace), nor is a file larger than any module a draft could rewrite read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return set()
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
            return set()
        data = os.read(fd, _MAX_FILE_BYTES)
    except OSError:
        return set()
    finally:
        os.close(fd)
    return set(_DEFINES.findall(data.decode("utf-8", errors="replace")))
