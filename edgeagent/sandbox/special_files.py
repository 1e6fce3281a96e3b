"""The FIFOs and sockets inside the directories a command sees read-only (/usr, /etc, the
Python installations), so that confine.py can cover each with /dev/null.

A read-only mount does not stop a FIFO being opened for writing or a Unix socket being
connected to, and no mount option does: a daemon's socket or a host tool's FIFO left in /etc
would be a way out of the sandbox. Finding them means reading every directory (~290,000
entries, ~1 s here), far too slow for every command, so the first look is kept, in memory and
on disk, with the mtime of every directory: a FIFO or socket made (or a directory renamed) in
a directory changes that directory's mtime. Rechecking those mtimes (~30,000 stats) is done
once per edgeagent process and again whenever commands move to another workspace (a new
task attempt); a directory whose mtime moved is read again, with all below it.

Not seen: one made in the middle of a task attempt (until the next attempt), one whose
directory's mtime was set back by hand, one on a filesystem mounted inside a bound directory
after the first look.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

_CACHE_VERSION = 1


@dataclass
class _Tree:
    """What is known of the directories under some tops: every directory's mtime, and the
    FIFOs and sockets found."""

    dirs: dict[str, int] = field(default_factory=dict)
    found: set[str] = field(default_factory=set)

    def scan(self, top: str) -> None:
        """Read top and everything below it (symlinks are not followed)."""
        stack = [top]
        while stack:
            path = stack.pop()
            try:
                mtime = os.stat(path, follow_symlinks=False).st_mtime_ns
                entries = list(os.scandir(path))
            except OSError:
                continue  # unreadable or gone: a command cannot open what is in it either
            self.dirs[path] = mtime
            for entry in entries:
                kind = _kind(entry)
                if kind == "dir":
                    stack.append(entry.path)
                elif kind == "special":
                    self.found.add(entry.path)

    def recheck(self) -> bool:
        """Read again every directory whose mtime moved (or that is gone); True if any."""
        moved = _outermost([d for d, mtime in self.dirs.items() if _mtime(d) != mtime])
        self._forget(set(moved))  # one pass, however many moved (a package install)
        for top in moved:
            self.scan(top)
        return bool(moved)

    def _forget(self, tops: set[str]) -> None:
        if tops:
            self.dirs = {d: m for d, m in self.dirs.items() if not _within(d, tops)}
            self.found = {f for f in self.found if not _within(os.path.dirname(f), tops)}


def _kind(entry: os.DirEntry[str]) -> str:
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False) or entry.is_symlink():
            return "other"
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return "other"
    return "special" if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else "other"


def _mtime(path: str) -> int | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_mtime_ns if stat.S_ISDIR(st.st_mode) else None


def _within(path: str, tops: set[str]) -> bool:
    """path is one of tops or below one (its ancestors looked up, not every top compared)."""
    while path not in tops:
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return True


def _outermost(paths: list[str]) -> list[str]:
    ordered = sorted(paths)
    tops: list[str] = []
    for path in ordered:
        if not tops or not (path == tops[-1] or path.startswith(tops[-1].rstrip("/") + "/")):
            tops.append(path)
    return tops


def cache_file() -> Path:
    """$EDGEAGENT_SPECIAL_FILES_CACHE, else ~/.cache/edgeagent/special-files.json."""
    named = os.environ.get("EDGEAGENT_SPECIAL_FILES_CACHE")
    return Path(named) if named else Path.home() / ".cache" / "edgeagent" / "special-files.json"


def _load(tops: tuple[str, ...]) -> _Tree | None:
    try:
        data = json.loads(cache_file().read_text())
        if data.get("version") != _CACHE_VERSION or tuple(data["tops"]) != tops:
            return None
        return _Tree({str(d): int(m) for d, m in data["dirs"].items()},
                     {str(f) for f in data["found"]})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None  # absent or damaged: look again


def _save(tops: tuple[str, ...], tree: _Tree) -> None:
    path = cache_file()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"version": _CACHE_VERSION, "tops": list(tops),
                                   "dirs": tree.dirs, "found": sorted(tree.found)}))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)  # a read-only or full home: the next process looks again


class SpecialFiles:
    """The FIFOs and sockets under some directories, kept current as the module says."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tops: tuple[str, ...] = ()
        self._tree: _Tree | None = None
        self._place: str | None = None

    def under(self, tops: list[str], place: str | None) -> list[str]:
        """Those under tops (real directories; a symlink among them is skipped), looked at
        again when place (the command's workspace) is not the last one asked about; None:
        as last known (what the sandbox's own probes use)."""
        key = tuple(sorted({t for t in tops if os.path.isdir(t) and not os.path.islink(t)}))
        with self._lock:
            if self._tree is None or key != self._tops:
                self._tops, self._tree, self._place = key, _load(key), None
                if self._tree is None:
                    self._tree = _Tree()
                    for top in _outermost(list(key)):
                        self._tree.scan(top)
                    _save(key, self._tree)
                    self._place = place  # just read: nothing to look at again
            if place is not None and place != self._place:
                self._place = place
                if self._tree.recheck():
                    _save(key, self._tree)
            return sorted(self._tree.found)
