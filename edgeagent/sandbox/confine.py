"""Confine one command's filesystem view, then exec it: run as `python -I -S confine.py ...`.

Runs inside a fresh mount namespace (`unshare --mount`): every mount becomes read-only, /tmp,
/var/tmp, /dev/shm and the host's home directories are replaced by private, size-capped tmpfs,
and only the workspace is bound back read-write. Nothing the command writes outside the
workspace survives it, and the host's home (keys, caches, other runs) cannot be read.

Standalone on purpose (stdlib only, no edgeagent import): it starts for every command, so it
must start fast, and it must not depend on anything the command could have changed.
Usage: confine.py WORKSPACE TMPFS_SIZE SHELL COMMAND [mask:DIR | keep:DIR ...]
(a kept directory inside a masked one, e.g. the Python installation under ~/.pyenv, is bound
back read-only so the command can still run it).
Exit code 125 with one line on stderr when the confinement cannot be set up: the command is
then never run unconfined.
"""

from __future__ import annotations

import ctypes
import os
import sys

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 1
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (added in Linux 5.12)
CANNOT_CONFINE = 125


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    _check(_libc.mount(_enc(src), _enc(target), _enc(fstype), flags, _enc(data)), f"mount {target}")


def _enc(s: str | None) -> bytes | None:
    return s.encode() if s is not None else None


def _mount_points() -> list[str]:
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            raw = line.split()[4]
            # mountinfo escapes space, tab, newline and backslash as octal
            points.append(raw.encode().decode("unicode_escape").encode("latin-1").decode())
    return points


def _all_read_only() -> None:
    attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    ret = _libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, b"/", AT_RECURSIVE,
                        ctypes.byref(attr), ctypes.sizeof(attr))
    if ret == 0:
        return
    # Older kernels: remount each mount point read-only, deepest last so none is missed.
    for point in _mount_points():
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        except OSError:
            # a mount that cannot be made read-only (locked in a user namespace) is checked
            # below: the probe refuses a confinement that leaves "/" writable
            pass
    if os.access("/", os.W_OK) and not _rofs("/"):
        raise OSError(0, "the root filesystem stayed writable")


def _rofs(path: str) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


# Capabilities a root command keeps: file ownership and permission overrides inside the
# workspace, signals to its own processes. Everything else goes from the bounding set before
# exec, so the command cannot undo the mounts (CAP_SYS_ADMIN), open files by handle
# (CAP_DAC_READ_SEARCH), trace other processes (CAP_SYS_PTRACE) or configure the network.
_KEEP_CAPS = {0, 1, 3, 4, 5, 6, 7, 10}  # CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID
PR_CAPBSET_DROP = 24                       # ... NET_BIND_SERVICE
PR_SET_NO_NEW_PRIVS = 38


def _drop_capabilities() -> None:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        if cap not in _KEEP_CAPS:
            _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "set no_new_privs")


def main(argv: list[str]) -> int:
    ws, size, shell, command, *extra = argv
    masks = [e[5:] for e in extra if e.startswith("mask:")]
    keeps = [e[5:] for e in extra if e.startswith("keep:") and os.path.isdir(e[5:])]
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    ws_fd = os.open(ws, os.O_RDONLY | os.O_DIRECTORY)  # still reachable once /tmp is covered
    keep_fds = [os.open(k, os.O_RDONLY | os.O_DIRECTORY) for k in keeps]
    _all_read_only()
    for d in ("/tmp", "/var/tmp", "/dev/shm", *masks):
        if os.path.isdir(d) and not os.path.islink(d):
            mode = "1777" if d in ("/tmp", "/var/tmp", "/dev/shm") else "0700"
            _mount("edgeagent-tmp", d, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")
    for keep, fd in zip(keeps, keep_fds, strict=True):
        if not os.path.isdir(keep):  # covered by a mask: bind it back, read-only
            os.makedirs(keep)
            _mount(f"/proc/self/fd/{fd}", keep, None, MS_BIND | MS_REC, None)
            _mount(None, keep, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        os.close(fd)
    os.makedirs(ws, exist_ok=True)
    _mount(f"/proc/self/fd/{ws_fd}", ws, None, MS_BIND, None)
    _mount(None, ws, None, MS_REMOUNT | MS_BIND, None)  # no MS_RDONLY: writable again
    os.close(ws_fd)
    os.chdir(ws)
    _drop_capabilities()
    if os.getpid() == 1:
        return _init(shell, command)
    os.execv(shell, [shell, "-c", command])
    return CANNOT_CONFINE  # not reached


def _init(shell: str, command: str) -> int:
    """PID 1 of the namespace: run the shell as a child (pid 1 ignores `kill -9 $$`), reap
    orphans, exit with the shell's status; the kernel then kills whatever is left."""
    child = os.fork()
    if child == 0:
        try:
            os.execv(shell, [shell, "-c", command])
        finally:
            os._exit(127)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return CANNOT_CONFINE
        if pid == child:
            if os.WIFSIGNALED(status):
                return 128 + os.WTERMSIG(status)
            return os.WEXITSTATUS(status)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError) as exc:
        print(f"edgeagent sandbox: cannot confine the command: {exc}", file=sys.stderr)
        sys.exit(CANNOT_CONFINE)
