"""A fresh copy of a task repository per attempt, and the rule that keeps file tools inside it."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from types import TracebackType

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
        try:
            owned = Path(tempfile.mkdtemp(prefix="edgeagent-ws-", dir=parent))
        except OSError as exc:  # a full or read-only disk under the temporary directory
            where = parent or tempfile.gettempdir()
            raise WorkspaceError(f"cannot make a workspace in {where}: "
                                 f"{exc.strerror or exc} (free space there or set TMPDIR "
                                 "to a writable directory)") from exc
        root = owned / "repo"
        try:
            shutil.copytree(repo, root, symlinks=True)
        except (OSError, shutil.Error) as exc:
            remove_tree(owned)
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

    def install_hidden_tests(self, hidden_dir: Path, repo: Path) -> None:
        """Put the hidden tests in a clean place: each top-level entry they fill is removed
        with whatever the agent put there, restored from the task's repository, then the
        hidden tests go in; every `__pycache__` and `.pyc` in the workspace goes too, so no
        planted module or bytecode runs in a test's place."""
        hidden_dir = Path(hidden_dir)
        if not hidden_dir.is_dir():
            raise WorkspaceError(f"{hidden_dir} is not a directory; check the task's hidden tests")
        for entry in os.scandir(hidden_dir):
            target = self.root / entry.name
            if os.path.lexists(target):
                _remove(target)
            original = Path(repo) / entry.name
            if original.is_dir() and not original.is_symlink():
                shutil.copytree(original, target, symlinks=True)
        _copy_into(hidden_dir, self.root)
        _remove_bytecode(self.root)

    def read_only(self) -> str | None:
        """Why the workspace can no longer be written, when its filesystem turned read-only
        (a disk error remounts it so, or a storage fault): no tool call can change that, so
        the task is over. None while it is writable."""
        try:
            flags = os.statvfs(self.root).f_flag
        except OSError:
            return None  # gone or unreadable: the tools say so to the agent, as ever
        if flags & os.ST_RDONLY:
            return f"the workspace's filesystem turned read-only ({self.root})"
        return None

    def cleanup(self) -> list[str]:
        """Remove the workspace; never raises. Returns what could not be removed (empty when
        all went), for the task record."""
        if self._owned_dir is None or not os.path.lexists(self._owned_dir):
            return []
        return remove_tree(self._owned_dir)

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
        problems = remove_tree(path)
        if problems:
            raise OSError(f"cannot remove {path}: {problems[0]}")
    else:
        path.unlink()


def _remove_bytecode(root: Path) -> None:
    stack = [str(root)]
    while stack:
        top = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name == "__pycache__":
                    _remove(Path(entry.path))
                else:
                    stack.append(entry.path)
            elif entry.name.endswith((".pyc", ".pyo")):
                os.unlink(entry.path)


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


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def _umount(path: str) -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).umount2(path.encode(), 2)  # MNT_DETACH
    except (OSError, AttributeError):
        pass


def _mounts_under(top: str) -> list[str]:
    """Mount points strictly inside top (a bind mount of the same filesystem has the same
    st_dev, so only the mount table tells)."""
    try:
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4] for line in f]
    except OSError:
        return []
    points = [p.encode().decode("unicode_escape").encode("latin-1").decode() for p in points]
    return sorted({p for p in points if p.startswith(top.rstrip("/") + "/")}, key=len)


def _detach_mount(fd: int) -> None:
    _umount(f"/proc/self/fd/{fd}")


def remove_tree(top: Path) -> list[str]:
    """Delete a directory tree without recursion, without following symlinks and without
    crossing into another filesystem; never raises.

    Any depth (a tree thousands of directories deep, past PATH_MAX) is removed: the walk holds
    one directory open at a time and names every entry relative to it. Directories a command
    made unreadable are made readable first. Returns one line per entry that stayed.
    """
    try:
        st = os.lstat(top)
    except FileNotFoundError:
        return []
    except OSError as exc:
        return [_failed(top, exc)]
    if not stat.S_ISDIR(st.st_mode):
        try:
            os.unlink(top)
        except OSError as exc:
            return [_failed(top, exc)]
        return []
    pinned = _detach_mounts_under(top)
    try:
        cur = os.open(top, _DIR_FLAGS)
    except OSError as exc:
        return [_failed(top, exc)]
    problems = _TreeRemoval(top, st.st_dev, pinned, cur).run()
    if not problems:
        try:
            os.rmdir(top)
        except OSError as exc:
            problems.append(_failed(top, exc))
    return problems[:20]


def _failed(where: object, exc: OSError) -> str:
    """One line of remove_tree's report: the entry and why it stayed."""
    return f"{where}: {exc.strerror or exc}"


def _detach_mounts_under(top: Path) -> set[str]:
    """Detach every mount left inside top; returns the mount points that stayed.

    A mount left inside (where commands could mount, or a bind made by hand) is detached
    instead of deleting what it shows; one that stays is never entered.
    """
    for point in reversed(_mounts_under(os.path.realpath(top))):
        _umount(point)
    return set(_mounts_under(os.path.realpath(top)))


class _TreeRemoval:
    """One remove_tree walk: the open directory `cur`, the path from top down to it, and
    what could not be removed. Depth first, one directory open at a time: a level is left
    (and removed) only when nothing in it is left to enter."""

    def __init__(self, top: Path, device: int, pinned: set[str], cur: int) -> None:
        self.top = top
        self.device = device  # the filesystem of top: a directory on another is a mount
        self.pinned = pinned  # mount points that could not be detached
        self.cur = cur  # owned: closed by run()
        self.names: list[str] = []  # the path from top to cur, one name per level
        self.skipped: list[set[str]] = [set()]  # per level: entries that could not be removed
        self.problems: list[str] = []

    def run(self) -> list[str]:
        """Remove everything below top (top itself stays); returns the problems."""
        try:
            while self._step():
                pass
        except OSError as exc:
            self.problems.append(_failed(self.top, exc))
        finally:
            os.close(self.cur)
        return self.problems

    def _step(self) -> bool:
        """Enter the next subdirectory, or leave and remove a cleared one; False when done."""
        child = self._clear_level()
        if child is not None:
            name, fd = child
            os.close(self.cur)
            self.cur = fd
            self.names.append(name)
            self.skipped.append(set())
            return True
        if not self.names:
            return False
        self._leave_level()
        return True

    def _clear_level(self) -> tuple[str, int] | None:
        """Remove cur's non-directories until a subdirectory to enter is found: its name
        and open descriptor, or None when cur holds nothing more to enter."""
        try:
            entries = list(os.scandir(self.cur))
        except OSError as exc:
            self.problems.append(_failed("/".join([str(self.top), *self.names]), exc))
            entries = []
        for entry in entries:
            if entry.name in self.skipped[-1]:
                continue
            fd = self._clear_entry(entry)
            if fd is not None:
                return entry.name, fd
        return None

    def _clear_entry(self, entry: os.DirEntry[str]) -> int | None:
        """Remove one entry of cur, or return the descriptor of a directory to enter."""
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        if self.pinned and (
            os.path.join(os.path.realpath(self.top), *self.names, entry.name) in self.pinned
        ):
            self._skip(entry.name, f"{entry.path}: a mount point that cannot be detached")
            return None
        if not is_dir:
            try:
                os.unlink(entry.name, dir_fd=self.cur)
            except OSError as exc:
                self._skip(entry.name, _failed(entry.path, exc))
            return None
        return self._open_subdir(entry)

    def _open_subdir(self, entry: os.DirEntry[str]) -> int | None:
        """The open descriptor of a subdirectory on top's filesystem; a mount on another
        is detached and its (then empty) mount point removed instead of being entered."""
        try:
            os.chmod(entry.name, 0o700, dir_fd=self.cur)  # unreadable dirs, non-root runs
        except OSError:
            pass
        try:
            fd = os.open(entry.name, _DIR_FLAGS, dir_fd=self.cur)
        except OSError as exc:
            self._skip(entry.name, _failed(entry.path, exc))
            return None
        if os.fstat(fd).st_dev == self.device:
            return fd
        _detach_mount(fd)
        os.close(fd)
        try:
            os.rmdir(entry.name, dir_fd=self.cur)
        except OSError as exc:
            self._skip(entry.name, f"{entry.path}: a mount point ({exc.strerror or exc})")
        return None

    def _leave_level(self) -> None:
        """Go up to cur's parent and remove the directory just cleared."""
        parent = os.open("..", _DIR_FLAGS, dir_fd=self.cur)
        os.close(self.cur)
        self.cur = parent
        name = self.names.pop()
        self.skipped.pop()
        try:
            os.rmdir(name, dir_fd=self.cur)
        except OSError as exc:
            self.problems.append(_failed("/".join([str(self.top), *self.names, name]), exc))
            self.skipped[-1].add(name)

    def _skip(self, name: str, problem: str) -> None:
        """Report an entry of cur that stays, and pass over it from now on."""
        self.problems.append(problem)
        self.skipped[-1].add(name)
