"""Repository files -> chunks: Python by top-level function/class, other text by line windows.

A chunk is the unit that is embedded, ranked and shown; its id carries the path and line
range so a hit can be opened with read_file directly.
"""

from __future__ import annotations

import ast
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Version of the chunking rules: part of the index cache key, so a change re-indexes.
CHUNKER_VERSION = "1"
WINDOW_LINES = 40
OVERLAP_LINES = 10
MAX_DEF_LINES = 120  # a longer function/class is split into windows
MAX_FILE_BYTES = 1 << 20  # larger files (data, generated code) are not indexed
SKIP_DIRS = frozenset({
    ".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".venv", "venv",
    "node_modules", ".tox", "build", "dist",
})
_BINARY_SNIFF = 8192


@dataclass(frozen=True)
class Chunk:
    path: str  # relative, '/'-separated
    start_line: int  # 1-based, inclusive
    end_line: int
    text: str
    kind: str  # def | class | module | window

    @property
    def id(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


@dataclass(frozen=True)
class SourceFile:
    path: str
    sha256: str
    size: int
    mtime_ns: int
    text: str | None  # None: binary, too large or unreadable (tracked, never chunked)


def _windows(path: str, lines: list[str], first: int, last: int, kind: str) -> Iterator[Chunk]:
    """Windows of WINDOW_LINES lines over lines[first-1:last], overlapping by OVERLAP_LINES."""
    start = first
    while start <= last:
        end = min(last, start + WINDOW_LINES - 1)
        text = "\n".join(lines[start - 1:end])
        if text.strip():
            yield Chunk(path, start, end, text, kind)
        if end == last:
            break
        start = end - OVERLAP_LINES + 1


def _python_chunks(path: str, text: str, lines: list[str]) -> Iterator[Chunk] | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None  # not valid Python (a template, py2): windows still find it

    def spans() -> Iterator[tuple[int, int, str]]:
        pending: int | None = None  # first line of top-level code between defs
        for node in tree.body:
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            end = node.end_lineno or node.lineno
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if pending is not None:
                    yield pending, start - 1, "module"
                    pending = None
                yield start, end, "class" if isinstance(node, ast.ClassDef) else "def"
            elif pending is None:
                pending = start
        if pending is not None:
            yield pending, len(lines), "module"

    def chunks() -> Iterator[Chunk]:
        for start, end, kind in spans():
            if end - start + 1 > MAX_DEF_LINES:
                yield from _windows(path, lines, start, end, kind)
            else:
                body = "\n".join(lines[start - 1:end])
                if body.strip():
                    yield Chunk(path, start, end, body, kind)

    return chunks()


def chunk_text(path: str, text: str) -> list[Chunk]:
    lines = text.splitlines()
    if not lines:
        return []
    if path.endswith(".py"):
        chunks = _python_chunks(path, text, lines)
        if chunks is not None:
            return list(chunks)
    return list(_windows(path, lines, 1, len(lines), "window"))


def read_source(root: Path, rel: str) -> SourceFile:
    full = root / rel
    st = full.stat()
    data = full.read_bytes() if st.st_size <= MAX_FILE_BYTES else b""
    sha = hashlib.sha256(data).hexdigest() if data else f"size:{st.st_size}"
    text = None
    if data and b"\x00" not in data[:_BINARY_SNIFF]:
        text = data.decode("utf-8", errors="replace")
    return SourceFile(rel, sha, st.st_size, st.st_mtime_ns, text)


def list_files(root: Path) -> list[str]:
    """Relative paths of the regular files under root, sorted, skipping caches and VCS."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(
            ".egg-info"))
        for name in filenames:
            full = Path(dirpath) / name
            if full.is_symlink() or not full.is_file():
                continue  # a link may point outside the repository
            found.append(full.relative_to(root).as_posix())
    return sorted(found)
