"""Apply what one confined command changed in its workspace to the real workspace.

confine.py shows a command its workspace as an overlay: the real workspace is the lower
layer, never written while the command runs, and every change lands in the upper layer, a
tmpfs capped at what the command may add (bytes and entries), so the kernel refuses the
write that would pass the cap (ENOSPC) where a poll could only notice it afterwards. When
every process of the command is gone, merge() applies the upper layer to the real workspace:
- a whiteout (a character device 0/0) deletes the name below it;
- a directory marked opaque (`user.overlay.opaque` = "y") replaces the one below it whole;
  any other directory is merged into the one below it, entry by entry;
- a regular file replaces the name (written beside it, then renamed over it, so a file is
  never seen half copied), holes kept: a sparse file stays sparse on the real disk;
- a symlink or a FIFO is recreated; sockets and devices are not kept (nothing outside the
  command's namespace could use them).
Modes and modification times come along (a stale mtime would fool make or Python's bytecode
cache); owners do not (one uid writes both layers). The merge holds no capability, so a file
or directory its owner cannot read or enter (chmod 000) is given the owner's rights first (no
process of the command is left to race it), and its own mode at the end.

The upper layer was written by untrusted code: every name is resolved one component at a
time from directory descriptors and no symlink is followed, in either tree. Directories nested
deeper than MAX_DEPTH are not merged; each thing that cannot be applied is one line of what
merge() returns.

Standalone (stdlib only, no edgeagent import): confine.py imports it before pivot_root.
"""

from __future__ import annotations

import errno
import os
import stat

OPAQUE_XATTR = "user.overlay.opaque"  # the name overlayfs uses when mounted with userxattr
MAX_DEPTH = 128
MAX_PROBLEMS = 20  # lines kept of what could not be applied; the count is kept whole
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
_COPY_CHUNK = 1 << 20


class Problems:
    """What could not be applied: the first MAX_PROBLEMS lines and how many in all."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def add(self, line: str) -> None:
        self.count += 1
        if len(self.lines) < MAX_PROBLEMS:
            self.lines.append(line)


def merge(upper: int, real: int) -> Problems:
    """Apply the upper layer (a directory descriptor) to the real directory `real`."""
    problems = Problems()
    _merge_dir(upper, real, "", 0, problems)
    return problems


def _merge_dir(upper: int, real: int, where: str, depth: int, problems: Problems) -> None:
    with os.scandir(upper) as it:
        entries = list(it)
    taken = {entry.name for entry in entries}
    for entry in entries:
        try:
            _merge_entry(upper, real, entry, where, depth, taken, problems)
        except OSError as exc:
            problems.add(f"{where}{entry.name}: {exc.strerror or exc}")


def _merge_entry(upper: int, real: int, entry: os.DirEntry[str], where: str, depth: int,
                 taken: set[str], problems: Problems) -> None:
    name = entry.name
    st = entry.stat(follow_symlinks=False)
    mode = st.st_mode
    if stat.S_ISCHR(mode) and st.st_rdev == 0:  # a whiteout: the command deleted it
        remove(real, name)
    elif stat.S_ISDIR(mode):
        if depth >= MAX_DEPTH:
            problems.add(f"{where}{name}/: nested deeper than {MAX_DEPTH} directories, not kept")
            return
        _merge_subdir(upper, real, name, st, where, depth, problems)
    elif stat.S_ISREG(mode):
        _copy_file(upper, real, name, st, taken)
    elif stat.S_ISLNK(mode):
        target = os.readlink(name, dir_fd=upper)
        remove(real, name)
        os.symlink(target, name, dir_fd=real)
        os.utime(name, ns=(st.st_atime_ns, st.st_mtime_ns), dir_fd=real, follow_symlinks=False)
    elif stat.S_ISFIFO(mode):
        remove(real, name)
        os.mkfifo(name, stat.S_IMODE(mode), dir_fd=real)


def _merge_subdir(upper: int, real: int, name: str, st: os.stat_result, where: str,
                  depth: int, problems: Problems) -> None:
    sub_upper = open_dir(upper, name)
    try:
        opaque = _xattr(sub_upper, OPAQUE_XATTR) == b"y"
        sub_real = _real_dir(real, name, opaque)
        try:
            # writable while it is filled, whatever its mode; its own mode last
            os.chmod(sub_real, stat.S_IMODE(st.st_mode) | stat.S_IRWXU)
            _merge_dir(sub_upper, sub_real, f"{where}{name}/", depth + 1, problems)
            os.chmod(sub_real, stat.S_IMODE(st.st_mode))
            os.utime(sub_real, ns=(st.st_atime_ns, st.st_mtime_ns))
        finally:
            os.close(sub_real)
    finally:
        os.close(sub_upper)


def _xattr(fd: int, name: str) -> bytes | None:
    try:
        return os.getxattr(fd, name)
    except OSError:
        return None


def _real_dir(real: int, name: str, opaque: bool) -> int:
    """The real directory `name` opened, made if missing; anything else by that name (a
    file, a symlink) removed first; emptied first when the upper one is opaque."""
    try:
        fd = open_dir(real, name)
    except FileNotFoundError:
        fd = None
    except OSError as exc:
        if exc.errno not in (errno.ENOTDIR, errno.ELOOP):
            raise
        remove(real, name)
        fd = None
    if fd is None:
        os.mkdir(name, 0o700, dir_fd=real)
        return open_dir(real, name)
    if opaque:
        try:
            _empty(fd)
        except BaseException:
            os.close(fd)
            raise
    return fd


def remove(parent: int, name: str) -> None:
    """Delete `name` in the directory `parent`, a directory with all it holds; no symlink is
    followed; nothing there is fine."""
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=parent)
        return
    fd = open_dir(parent, name)
    try:
        os.chmod(fd, stat.S_IRWXU)  # a read-only directory's entries can go all the same
        _empty(fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def open_dir(parent: int, name: str) -> int:
    """The directory `name` in `parent`, opened without following a symlink; one its owner
    may not read or enter gets the owner's rights first."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except PermissionError:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISDIR(st.st_mode):
            raise
        # lstat said directory and nothing else runs now: chmod cannot be steered elsewhere
        os.chmod(name, stat.S_IMODE(st.st_mode) | stat.S_IRWXU, dir_fd=parent)
        return os.open(name, _DIR_FLAGS, dir_fd=parent)


def _empty(fd: int) -> None:
    with os.scandir(fd) as it:
        names = [entry.name for entry in it]
    for name in names:
        remove(fd, name)


def _copy_file(upper: int, real: int, name: str, st: os.stat_result, taken: set[str]) -> None:
    if not st.st_mode & stat.S_IRUSR:  # chmod 000: readable for the copy, its mode kept below
        os.chmod(name, stat.S_IMODE(st.st_mode) | stat.S_IRUSR, dir_fd=upper)
    src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=upper)
    try:
        temp, dst = _temp_file(real, taken)
        try:
            try:
                _copy_data(src, dst, st.st_size)
                os.chmod(dst, stat.S_IMODE(st.st_mode))
                os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
            finally:
                os.close(dst)
            if _is_dir(real, name):  # a directory the command replaced by a file
                remove(real, name)
            os.rename(temp, name, src_dir_fd=real, dst_dir_fd=real)
        except BaseException:
            _unlink_quietly(real, temp)
            raise
    finally:
        os.close(src)


def _temp_file(real: int, taken: set[str]) -> tuple[str, int]:
    """A new file beside the target, under a name neither layer uses (never an existing
    file: O_EXCL)."""
    for n in range(1000):
        temp = f".edgeagent-merge-{n}"
        if temp in taken:
            continue
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                         dir_fd=real)
        except FileExistsError:
            continue
        return temp, fd
    raise OSError(errno.EEXIST, "no free name for a temporary file")


def _copy_data(src: int, dst: int, size: int) -> None:
    """The data of src into dst at the same offsets; holes stay holes."""
    os.ftruncate(dst, size)
    offset = 0
    while offset < size:
        try:
            start = os.lseek(src, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                return
            raise
        end = os.lseek(src, start, os.SEEK_HOLE)
        os.lseek(dst, start, os.SEEK_SET)
        while start < end:
            sent = os.sendfile(dst, src, start, min(_COPY_CHUNK, end - start))
            if sent == 0:  # the file shrank under us: nothing writes it now, but never spin
                return
            start += sent
        offset = end


def _is_dir(parent: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def _unlink_quietly(parent: int, name: str) -> None:
    try:
        os.unlink(name, dir_fd=parent)
    except OSError:
        pass
