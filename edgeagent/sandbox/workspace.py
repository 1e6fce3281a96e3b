"""A fresh copy of a task repository per attempt, and the rule that keeps file tools inside it."""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from edgeagent.errors import UserError


class PathRefused(Exception):
    """A path a file tool must not touch because it leaves the workspace (message says why)."""


class WorkspaceError(UserError):
    """A task repository (or hidden-test directory) that cannot be copied into a workspace."""


class Workspace:
    """A directory the agent may change freely; `cleanup` removes it if `create` made it."""

    def __init__(self, root: Path, owned_dir: Path | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        # Only a directory this class created is ever deleted: wrapping an existing one is safe.
        self._owned_dir = owned_dir

    @classmethod
    def create(cls, repo: Path, parent: Path | None = None) -> Workspace:
        """Copy repo into a new temporary directory; symlinks are copied, never followed."""
        repo = Path(repo)
        if not repo.is_dir():
            raise WorkspaceError(f"task repository {repo} is not a directory; check the task path")
        if parent is not None:
            Path(parent).mkdir(parents=True, exist_ok=True)
        owned = Path(tempfile.mkdtemp(prefix="edgeagent-ws-", dir=parent))
        root = owned / "repo"
        try:
            shutil.copytree(repo, root, symlinks=True)
        except (OSError, shutil.Error) as exc:
            _remove_tree(owned)
            raise WorkspaceError(f"cannot copy task repository {repo}: {exc}") from exc
        return cls(root, owned_dir=owned)

    def resolve(self, rel: str) -> Path:
        """The real path for a workspace-relative path, or PathRefused if it leaves the root."""
        if not isinstance(rel, str):
            raise PathRefused(f"path must be a string, got {type(rel).__name__}")
        if "\x00" in rel:
            raise PathRefused(f"{rel!r} contains a NUL byte")
        if os.path.isabs(rel):
            raise PathRefused(f"{rel!r} is absolute; use a path relative to the workspace root")
        norm = os.path.normpath(rel or ".")
        if norm == os.pardir or norm.startswith(os.pardir + os.sep):
            raise PathRefused(f"{rel!r} leaves the workspace through '..'")
        # realpath follows every symlink along the path, dangling ones included, so a link to
        # a file that does not exist yet cannot be used to create one outside.
        real = Path(os.path.realpath(self.root / norm))
        if not real.is_relative_to(self.root):
            raise PathRefused(f"{rel!r} goes through a symlink that points outside the workspace")
        return real

    def relpath(self, path: Path) -> str:
        """How a path inside the workspace is shown to the model: relative, with '/'."""
        rel = Path(path).relative_to(self.root).as_posix()
        return rel or "."

    def add_files(self, src_dir: Path) -> None:
        """Copy a directory's contents into the root, overwriting what the agent left there."""
        src_dir = Path(src_dir)
        if not src_dir.is_dir():
            raise WorkspaceError(f"{src_dir} is not a directory; check the task's hidden tests")
        _copy_into(src_dir, self.root)

    def cleanup(self) -> None:
        if self._owned_dir is not None and self._owned_dir.exists():
            _remove_tree(self._owned_dir)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.cleanup()

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        _remove_tree(path)
    else:
        path.unlink()


def _copy_into(src: Path, dst: Path) -> None:
    # Not copytree(dirs_exist_ok=True): it would write through a symlink the agent planted
    # where a hidden test goes. Every directory entered here is a real one inside the root.
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_dir(follow_symlinks=False):
            if target.is_symlink() or (target.exists() and not target.is_dir()):
                _remove(target)
            target.mkdir(exist_ok=True)
            _copy_into(Path(entry.path), target)
            continue
        if target.is_symlink() or target.exists():
            _remove(target)
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        else:
            shutil.copy2(entry.path, target)


def _remove_tree(path: Path) -> None:
    # A command may leave read-only directories behind; make them writable and retry.
    def retry(func: Any, failed: str, _exc: Any) -> None:
        try:
            parent = os.path.dirname(failed)
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IRWXU)
            func(failed)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=retry)
    else:
        shutil.rmtree(path, onerror=retry)
