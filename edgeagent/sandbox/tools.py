"""The agent's tools: called by name with JSON arguments, answered with an observation.

The caller is a small model, so every failure is an observation it can act on (one line that
says what was wrong and what to do instead), never an exception.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgeagent.retrieval import RetrievalCost
from edgeagent.sandbox import edit_match
from edgeagent.sandbox.process import CommandResult, ProcessLimits, run_command
from edgeagent.sandbox.workspace import PathRefused, Workspace

MAX_DIR_ENTRIES = 200
MAX_READ_LINES = 400
MAX_GREP_MATCHES = 100
MAX_LINE_CHARS = 500
MAX_GREP_LINE_CHARS = 200
# Directories nobody wants in a listing or a search: tool caches and VCS internals.
SKIP_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_BINARY_SNIFF_BYTES = 8192
_EOL = "\r\n"
# The longest a grep may run: a catastrophic regex is the model's mistake, not a hang.
MAX_GREP_S = 20.0
MAX_GREP_FILES = 20_000
# grep's matching runs in a child interpreter that can be killed: CPython's regex engine
# cannot be stopped from another thread, and a timer signal reaches only the main thread.
_GREP_WORKER = r"""
import json, re, sys
req = json.load(sys.stdin)
rx, hits = re.compile(req["pattern"]), []
for rel, path in req["files"]:
    try:
        with open(path, "rb") as f:
            if b"\0" in f.read(req["sniff"]):
                continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, start=1):
                if rx.search(line):
                    if len(hits) == req["max"]:
                        print(json.dumps({"hits": hits, "more": True}))
                        sys.exit(0)
                    text = line.rstrip("\r\n")
                    hits.append([rel, number, text[:req["clip"]], len(text)])
    except OSError:
        continue
print(json.dumps({"hits": hits, "more": False}))
"""


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str  # one line for a small model's system prompt
    parameters: dict  # JSON schema object with simple property types


@dataclass(frozen=True)
class ToolResult:
    output: str  # the observation text for the model
    exit_code: int | None  # for run / run_tests; None otherwise
    error: bool  # refused or failed
    wall_ms: float
    submitted: bool = False
    retrieval: RetrievalCost | None = None  # search_code's cost split


def _schema(props: dict[str, tuple[str, str]], required: tuple[str, ...] = ()) -> dict:
    return {
        "type": "object",
        "properties": {k: {"type": t, "description": d} for k, (t, d) in props.items()},
        "required": list(required),
        "additionalProperties": False,
    }


_PATH = ("string", "path relative to the repository root")

TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "list_dir",
        "List the files and folders in a directory (folders end with /).",
        _schema({"path": ("string", "directory, default '.'")}),
    ),
    ToolSpec(
        "read_file",
        f"Show lines of a file with line numbers, at most {MAX_READ_LINES} per call.",
        _schema(
            {
                "path": _PATH,
                "start_line": ("integer", "first line to show, default 1"),
                "end_line": ("integer", "last line to show, default end of file"),
            },
            ("path",),
        ),
    ),
    ToolSpec(
        "grep",
        "Search files for a Python regex; prints file:line: text for each match.",
        _schema(
            {"pattern": ("string", "Python regular expression"),
             "path": ("string", "file or directory to search, default '.'")},
            ("pattern",),
        ),
    ),
    ToolSpec(
        "edit",
        "Replace the exact text old with new in a file; old must occur exactly once.",
        _schema(
            {"path": _PATH,
             "old": ("string", "exact text to replace, with its indentation"),
             "new": ("string", "replacement text")},
            ("path", "old", "new"),
        ),
    ),
    ToolSpec(
        "write_file",
        "Create or overwrite a file with the given content.",
        _schema({"path": _PATH, "content": ("string", "the whole new file")}, ("path", "content")),
    ),
    ToolSpec(
        "run",
        "Run a shell command in the repository root; shows exit code and output.",
        _schema({"command": ("string", "bash command")}, ("command",)),
    ),
    ToolSpec("run_tests", "Run the task's tests; shows exit code and output.", _schema({})),
    ToolSpec("submit", "Finish the task: submit your changes when the tests pass.", _schema({})),
)

# Offered only when retrieval is enabled and installed (the Toolbox has a retriever).
SEARCH_CODE_SPEC = ToolSpec(
    "search_code",
    "Find code by meaning or words (embeddings + BM25); prints path:lines with a snippet.",
    _schema(
        {"query": ("string", "what you are looking for, in words or identifiers"),
         "k": ("integer", "how many results, default 5, at most 20")},
        ("query",),
    ),
)
# Every tool a trajectory may name (oracles, replays); a toolbox offers a subset.
ALL_TOOL_SPECS: tuple[ToolSpec, ...] = (*TOOL_SPECS[:3], SEARCH_CODE_SPEC, *TOOL_SPECS[3:])
MAX_SEARCH_K = 20

_SPECS_BY_NAME = {spec.name: spec for spec in ALL_TOOL_SPECS}
_JSON_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "integer": (int,)}


class ToolFailed(Exception):
    """Raised inside a tool to end it with an error observation (never leaves Toolbox.call).

    The message is one line; `detail` (lines of the file, say) follows it verbatim."""

    def __init__(self, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.detail = detail


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names = {str: "string", int: "integer", float: "number", list: "array", dict: "object"}
    return names.get(type(value), type(value).__name__)


def _check_args(spec: ToolSpec, args: Any) -> dict[str, Any]:
    """The arguments as keyword arguments, or ToolFailed naming what is wrong."""
    props: dict[str, dict] = spec.parameters["properties"]
    expected = f"(arguments: {', '.join(props) or 'none'})"
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ToolFailed(f"arguments for {spec.name} must be a JSON object, got {_json_type(args)}")
    unknown = [k for k in args if k not in props]
    if unknown:
        raise ToolFailed(f"{spec.name} got unknown argument '{unknown[0]}' {expected}")
    for key in spec.parameters["required"]:
        if args.get(key) is None:
            raise ToolFailed(f"{spec.name} is missing required argument '{key}' {expected}")
    kwargs = {}
    for key, value in args.items():
        if value is None:
            continue  # an optional argument given as null means "use the default"
        want = props[key]["type"]
        if isinstance(value, bool) or not isinstance(value, _JSON_TYPES[want]):
            raise ToolFailed(
                f"{spec.name} argument '{key}' must be {'an' if want[0] in 'aeiou' else 'a'} "
                f"{want}, got {_json_type(value)}"
            )
        kwargs[key] = value
    return kwargs


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _is_binary(path: Path) -> bool:
    with open(path, "rb") as f:
        return b"\x00" in f.read(_BINARY_SNIFF_BYTES)


def _clip(line: str, limit: int) -> str:
    if len(line) <= limit:
        return line
    return f"{line[:limit]} ... [line cut, {len(line)} chars]"


def _encode(text: str) -> bytes:
    # surrogateescape gives back the exact bytes of a file read with it (non-UTF-8 files
    # survive an edit); a lone surrogate from JSON cannot, so it becomes '?'.
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="replace")


class Toolbox:
    """The tools bound to one workspace and one task's test command."""

    def __init__(
        self, workspace: Workspace, test_command: str, limits: ProcessLimits,
        retriever: Any = None,  # edgeagent.retrieval.service.Retriever: offers search_code
        retrieval_unavailable: str | None = None,  # why search_code is off, for the model
    ) -> None:
        self.workspace = workspace
        self.test_command = test_command
        self.limits = limits
        self.retriever = retriever
        self.retrieval_unavailable = retrieval_unavailable
        self.specs: tuple[ToolSpec, ...] = ALL_TOOL_SPECS if retriever is not None else TOOL_SPECS
        self._retrieval_cost: RetrievalCost | None = None
        self._handlers: dict[str, Callable[..., str | CommandResult]] = {
            "list_dir": self._list_dir,
            "read_file": self._read_file,
            "grep": self._grep,
            "search_code": self._search_code,
            "edit": self._edit,
            "write_file": self._write_file,
            "run": self._run,
            "run_tests": self._run_tests,
            "submit": lambda: "submitted",
        }

    def repo_files(self, limit: int = 40, named_in: str = "") -> list[str]:
        """Relative paths of the workspace's files, for the task prompt (bounded). Files whose
        path appears in `named_in` (the issue) are always listed, even past the bound."""
        found: list[str] = []
        named: list[str] = []
        cut = False
        for dirpath, dirnames, filenames in os.walk(self.workspace.root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                rel = self.workspace.relpath(Path(dirpath) / name)
                if named_in and rel in named_in:
                    named.append(rel)
                elif len(found) < limit:
                    found.append(rel)
                else:
                    cut = True
                    if not named_in:
                        return found + ["..."]
        listed = found[: max(0, limit - len(named))] + named
        return listed + ["..."] if cut or len(listed) < len(found) + len(named) else listed

    def workspace_fault(self) -> str | None:
        """Why no tool call can change the workspace any more (its filesystem turned
        read-only), which ends the task; None while it works."""
        return self.workspace.read_only()

    def call(self, name: str, args: dict) -> ToolResult:
        start = time.monotonic()

        def done(output: str, error: bool, exit_code: int | None = None) -> ToolResult:
            wall_ms = (time.monotonic() - start) * 1000.0
            submitted = name == "submit" and not error
            cost, self._retrieval_cost = self._retrieval_cost, None
            return ToolResult(output, exit_code, error, wall_ms, submitted=submitted,
                              retrieval=cost)

        spec = _SPECS_BY_NAME.get(name) if isinstance(name, str) else None
        if spec is None:
            return ToolResult(
                f"unknown tool {name!r}; available tools: {', '.join(s.name for s in self.specs)}",
                None, True, (time.monotonic() - start) * 1000.0,
            )
        try:
            outcome = self._handlers[name](**_check_args(spec, args))
        except ToolFailed as exc:
            detail = f"\n{exc.detail}" if exc.detail else ""
            return done(_one_line(str(exc)) + detail, True)
        except PathRefused as exc:
            return done(_one_line(f"path escapes the workspace: {exc}"), True)
        except OSError as exc:
            return done(_one_line(f"{name} failed: {exc.strerror or exc}"), True)
        except Exception as exc:  # a tool bug must not end the agent's run
            return done(_one_line(f"{name} failed: {type(exc).__name__}: {exc}"), True)
        if isinstance(outcome, CommandResult):
            return done(_describe(outcome, self.limits), False, outcome.exit_code)
        return done(outcome, False)

    # -- paths --

    def _existing(self, path: str, want: str) -> Path:
        real = self.workspace.resolve(path)
        if not os.path.lexists(real):
            hint = "; use write_file to create it" if want == "edit" else "; use list_dir to look"
            raise ToolFailed(f"no such file or directory: {path}{hint}")
        if want == "dir" and not real.is_dir():
            raise ToolFailed(f"{path} is a file, not a directory; use read_file")
        if want in ("file", "edit") and real.is_dir():
            raise ToolFailed(f"{path} is a directory, not a file; use list_dir")
        if want in ("file", "edit") and not real.is_file():
            raise ToolFailed(f"{path} is not a regular file")
        if want in ("file", "edit") and os.stat(real).st_nlink > 1:
            # its other name may be outside the workspace: reading or editing it would too
            raise ToolFailed(
                f"{path} has {os.stat(real).st_nlink} hard links and may share its content with "
                "a file outside the workspace; copy it (cp) and use the copy"
            )
        if want in ("file", "edit") and _is_binary(real):
            raise ToolFailed(f"{path} is a binary file and cannot be shown or edited")
        return real

    def _walk_files(self, top: Path) -> Iterator[Path]:
        if not top.is_dir():
            yield top
            return
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in sorted(filenames):
                path = Path(dirpath) / name
                if path.is_symlink():
                    # A link may point outside; search only what resolve allows.
                    try:
                        path = self.workspace.resolve(self.workspace.relpath(path))
                    except PathRefused:
                        continue
                if path.is_file():
                    yield path

    # -- tools --

    def _list_dir(self, path: str = ".") -> str:
        real = self._existing(path, "dir")
        entries = sorted(
            (e for e in os.scandir(real) if e.name not in SKIP_DIRS), key=lambda e: e.name
        )
        if not entries:
            return f"{path} is an empty directory"
        lines = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries]
        if len(lines) > MAX_DIR_ENTRIES:
            more = len(lines) - MAX_DIR_ENTRIES
            lines = lines[:MAX_DIR_ENTRIES] + [f"[... {more} more entries not shown]"]
        return "\n".join(lines)

    def _read_file(self, path: str, start_line: int = 1, end_line: int | None = None) -> str:
        real = self._existing(path, "file")
        if start_line < 1:
            raise ToolFailed(f"start_line must be 1 or more, got {start_line}")
        if end_line is not None and end_line < start_line:
            raise ToolFailed(f"end_line ({end_line}) is before start_line ({start_line})")
        last = start_line + MAX_READ_LINES - 1
        if end_line is not None:
            last = min(last, end_line)
        shown: list[str] = []
        total = 0
        with open(real, encoding="utf-8", errors="replace") as f:
            for total, line in enumerate(f, start=1):
                if start_line <= total <= last:
                    shown.append(f"{total}| {_clip(line.rstrip(_EOL), MAX_LINE_CHARS)}")
        if total == 0:
            return f"{path} is empty"
        if start_line > total:
            raise ToolFailed(f"start_line {start_line} is past the end of {path} ({total} lines)")
        shown_last = min(last, total)
        wanted_last = total if end_line is None else min(end_line, total)
        if shown_last < wanted_last:
            shown.append(
                f"[... {path} has {total} lines; showed {start_line}-{shown_last}; "
                f"call read_file with start_line={shown_last + 1} to read more]"
            )
        elif start_line > 1 or shown_last < total:
            # a range the caller chose: say what lies outside it, or a model that asked for
            # line 1 alone takes a one-line file for the whole (seen live: start_line=1,
            # end_line=1, then edits of text it never saw)
            shown.append(f"[{path} has {total} lines; showed {start_line}-{shown_last}; "
                         "read_file without start_line and end_line shows the whole file]")
        return "\n".join(shown)

    def _grep(self, pattern: str, path: str = ".") -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ToolFailed(f"invalid regex {pattern!r}: {exc}") from exc
        top = self.workspace.resolve(path)
        if not os.path.exists(top):
            raise ToolFailed(f"no such file or directory: {path}; use list_dir to look")
        limit_s = min(self.limits.timeout_s, MAX_GREP_S)
        files: list[list[str]] = []
        walk_until = time.monotonic() + limit_s / 2  # the walk runs here, so it is bounded too
        for f in self._walk_files(top):
            if len(files) == MAX_GREP_FILES or time.monotonic() > walk_until:
                break
            files.append([self.workspace.relpath(f), str(f)])
        else:
            walk_until = 0.0
        request = {"pattern": pattern, "files": files, "max": MAX_GREP_MATCHES,
                   "clip": MAX_GREP_LINE_CHARS, "sniff": _BINARY_SNIFF_BYTES}
        try:
            done = subprocess.run(
                [sys.executable, "-I", "-S", "-c", _GREP_WORKER], input=json.dumps(request),
                capture_output=True, text=True, timeout=limit_s, env={"LC_ALL": "C.UTF-8"},
            )
            found = json.loads(done.stdout)
        except subprocess.TimeoutExpired as exc:
            raise ToolFailed(
                f"grep stopped after {limit_s:g} s: the pattern {pattern!r} takes too long "
                "(nested repeats such as (a+)+ backtrack); use a simpler pattern or a "
                "narrower path"
            ) from exc
        except ValueError as exc:
            raise ToolFailed(f"grep failed: {done.stderr.strip()[-300:]}") from exc
        hits = [f"{rel}:{number}: " + (text if length <= MAX_GREP_LINE_CHARS
                                       else f"{text} ... [line cut, {length} chars]")
                for rel, number, text, length in found["hits"]]
        if found["more"]:
            hits.append(f"[... stopped after {MAX_GREP_MATCHES} matches; "
                        "use a narrower pattern or path]")
        partial = f"[... searched only the first {len(files)} files; use a narrower path]"
        if not hits:
            return f"no matches for {pattern!r} in {path}" + (f"\n{partial}" if walk_until else "")
        if walk_until and not found["more"]:
            hits.append(partial)
        return "\n".join(hits)

    def _search_code(self, query: str, k: int = 5) -> str:
        if self.retriever is None:
            why = self.retrieval_unavailable or "retrieval is not enabled for this run"
            raise ToolFailed(f"search_code is not available: {why}; use grep instead")
        if not query.strip():
            raise ToolFailed("query must not be empty; describe the code you are looking for")
        if not 1 <= k <= MAX_SEARCH_K:
            raise ToolFailed(f"k must be between 1 and {MAX_SEARCH_K}, got {k}")
        from edgeagent.retrieval import format_hits

        result = self.retriever.search(query, k)
        self._retrieval_cost = result.cost
        return format_hits(result)

    def _edit(self, path: str, old: str, new: str) -> str:
        if not old:
            raise ToolFailed("old must not be empty; use write_file to create or replace a file")
        if old == new:
            raise ToolFailed(
                "old and new are the same; nothing to change: new must hold the corrected text"
            )
        real = self._existing(path, "edit")
        text = real.read_bytes().decode("utf-8", errors="surrogateescape")
        found = edit_match.find(text, old, new)
        if found == 0:
            closest = edit_match.closest_lines(text, old)
            if closest is None:
                raise ToolFailed(f"old text not found in {path}; {_not_found_hint(text, old)}")
            raise ToolFailed(
                f"old text not found in {path}; the closest lines in {path} are below: copy "
                "old from them exactly, without the 'N| ' prefixes",
                closest,
            )
        if isinstance(found, int):
            raise ToolFailed(
                f"old text matches {found} times in {path}; "
                "include more surrounding lines to make it unique"
            )
        if text[found.start:found.end] == found.new:
            raise ToolFailed(
                f"old and new are the same once {found.note}; nothing to change: new must hold "
                "the corrected text"
            )
        first = text.count("\n", 0, found.start) + 1
        last = first + text.count("\n", found.start, found.end)
        real.write_bytes(_encode(text[:found.start] + found.new + text[found.end:]))
        message = f"edited {path}: replaced 1 occurrence (lines {first}-{last})"
        new_last = first + found.new.count("\n")
        if new_last != last:
            message += f"; the new text is lines {first}-{new_last}"
        if found.note:
            message += f" ({found.note})"
        return message

    def _write_file(self, path: str, content: str) -> str:
        real = self.workspace.resolve(path)
        if real.is_dir():
            raise ToolFailed(f"{path} is a directory; give a file path")
        data = _encode(content)
        if len(data) > self.limits.file_size_bytes:
            raise ToolFailed(
                f"content is {len(data)} bytes; the limit is {self.limits.file_size_bytes}"
            )
        existed = os.path.lexists(real)
        if existed and not stat.S_ISREG(os.lstat(real).st_mode):
            # a FIFO would block the write forever, a device or socket is not a file
            raise ToolFailed(f"{path} is not a regular file (a FIFO, socket or device); "
                             "remove it first or choose another path")
        if existed and os.stat(real).st_nlink > 1:
            real.unlink()  # a new file, not a write through a hard link that may lead outside
        real.parent.mkdir(parents=True, exist_ok=True)
        # O_NONBLOCK: should a FIFO appear here after the check, open fails instead of waiting
        fd = os.open(real, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK
                     | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolFailed(f"{path} is not a regular file; choose another path")
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        verb = "overwrote" if existed else "created"
        return f"{verb} {self.workspace.relpath(real)} ({lines} lines, {len(data)} bytes)"

    def _run(self, command: str) -> CommandResult:
        if not command.strip():
            raise ToolFailed("command is empty; give a bash command such as 'ls'")
        return run_command(command, self.workspace.root, self.limits)

    def _run_tests(self) -> CommandResult:
        if not self.test_command.strip():
            raise ToolFailed("this task has no test command; use run to test by hand")
        return run_command(self.test_command, self.workspace.root, self.limits)


def _describe(result: CommandResult, limits: ProcessLimits) -> str:
    if result.limit_hit is not None and result.limit_killed:
        head = f"killed: {result.limit_hit}"
    elif result.limit_hit is not None:
        head = f"exit code: {result.exit_code}\nlimit: {result.limit_hit}"
    elif result.timed_out:
        head = (
            f"timed out after {limits.timeout_s:g} s; the command and its children were killed"
        )
    else:
        head = f"exit code: {result.exit_code}"
    return f"{head}\n{result.output}" if result.output else f"{head}\n(no output)"


_LINE_NUMBER_PREFIX = re.compile(r"^\s*\d+\| ", re.MULTILINE)


def _not_found_hint(text: str, old: str) -> str:
    if _LINE_NUMBER_PREFIX.search(old):
        return "do not copy the 'N| ' line-number prefixes that read_file shows"
    # Compared with whitespace squeezed out: wrong indentation is the usual miss.
    first = next(("".join(line.split()) for line in old.splitlines() if line.strip()), "")
    if first:
        for number, line in enumerate(text.splitlines(), start=1):
            if first in "".join(line.split()):
                return (
                    f"its first line appears at line {number}; read_file there and copy the "
                    "exact text, including indentation"
                )
    return "read_file first and copy the exact text, including indentation"
