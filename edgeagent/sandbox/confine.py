"""Confine one command's view of the machine, then exec it: run as `python -I -S confine.py ...`.

Runs inside fresh namespaces (`unshare --mount`, and --ipc/--pid where the probe found them)
and builds a new root from an allowlist: an empty tmpfs into which only what a command needs
is bound read-only (the system directories, the Python installations and their library
directories), a minimal /dev (null, zero, full, random, urandom, tty, its own pts), its own
/proc, private size-capped tmpfs for /tmp, /var/tmp and /dev/shm, and the workspace, the one
writable place. Masked paths inside what is bound (the suites, the run directory, models,
edgeagent's own package, /etc/shadow) are covered by an empty tmpfs or /dev/null. After
pivot_root the host's tree is detached: no path leads back to it.

Then every capability goes (bounding, effective, permitted, inheritable and ambient sets,
securebits locked), no_new_privs is set, and a seccomp filter refuses the kernel keyring
(add_key, request_key, keyctl), which no namespace here separates from the host.

With `forward:PORT:PATH` (only ever passed with `unshare --net`) the command may reach one
endpoint: loopback is brought up in its (otherwise empty) network namespace while capabilities
are still held, 127.0.0.1:PORT is bound there, and once every capability is gone a relay
(threads of the supervising process that waits for the shell) copies each TCP connection
accepted there, bytes both ways, to the Unix socket PATH on the host, whose directory the
caller also passes as a bind. Nothing else listens in the namespace and no other interface is
up. The relay dies with the supervisor, which exits with the shell's status.

The supervisor (pid 1 of the namespace, or the relay's process) is not dumpable: the command,
with the same uid and (no) capabilities, could otherwise ptrace it and rewrite the exit
status it reports or the bytes it relays.

Standalone on purpose (stdlib only, no edgeagent import): it starts for every command, so it
must start fast, and it must not depend on anything the command could have changed.
With `quota:BYTES:ENTRIES:FD` (only ever passed with `unshare --pid`) the workspace is an
overlay whose changes wait in a tmpfs of BYTES and ENTRIES, the kernel's hard bound on what the
command adds; pid 1 merges them into the real workspace once every process of the command is
gone (overlay_merge.py) and writes what happened to FD (see _Layer.finish).

Usage: confine.py WORKSPACE TMPFS_SIZE SHELL COMMAND
                  [bind:PATH | mask:PATH | forward:PORT:SOCKET_PATH | quota:BYTES:ENTRIES:FD]
Exit code 125 with one line on stderr when the confinement cannot be set up: the command is
then never run unconfined.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

TYPE_CHECKING = False  # typing costs ~10 ms at every start; annotations are strings anyway
if TYPE_CHECKING:
    import socket
    import threading

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_BIND = 4096
MS_MOVE = 8192
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 1
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (added in Linux 5.12)
CANNOT_CONFINE = 125
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
# pivot_root has no libc wrapper everywhere: its number per machine (others fall back to
# MS_MOVE + chroot)
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "armv7l": 218, "armv6l": 218,
               "ppc64le": 203, "s390x": 217, "i686": 217}


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


def _read_only(path: str) -> None:
    """Make the mount at path and every mount below it read-only."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    ret = _libc.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), AT_RECURSIVE,
                        ctypes.byref(attr), ctypes.sizeof(attr))
    if ret == 0:
        return
    # Older kernels: remount each mount point read-only, deepest last so none is missed.
    for point in _mount_points():
        if point == path or point.startswith(path.rstrip("/") + "/"):
            try:
                _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
            except OSError:
                pass  # checked below: a writable root is refused
    if not _rofs(path):
        raise OSError(0, f"{path} stayed writable")


def _rofs(path: str) -> bool:
    return bool(os.statvfs(path).f_flag & os.ST_RDONLY)


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _bind_fd(fd: int, target: str, recursive: bool = True) -> None:
    _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | (MS_REC if recursive else 0), None)


def _make_dev(root: str) -> None:
    dev = root + "/dev"
    os.makedirs(dev, exist_ok=True)
    _mount("edgeagent-dev", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=755")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            open(f"{dev}/{name}", "w").close()
            _mount(f"/dev/{name}", f"{dev}/{name}", None, MS_BIND, None)
    os.mkdir(f"{dev}/pts")
    try:  # a private pts instance: the host's terminals stay out of reach
        _mount("devpts", f"{dev}/pts", "devpts", MS_NOSUID | MS_NOEXEC,
               "newinstance,ptmxmode=0666,mode=620")
        os.symlink("pts/ptmx", f"{dev}/ptmx")
    except OSError:
        pass  # no pseudo-terminals then; commands run without one anyway
    os.mkdir(f"{dev}/shm")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")


def _make_proc(root: str) -> None:
    os.makedirs(root + "/proc", exist_ok=True)
    try:  # this pid namespace's own /proc where there is one
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
    except OSError:
        _mount("/proc", root + "/proc", None, MS_BIND | MS_REC, None)


def _pivot(root: str) -> None:
    os.chdir(root)
    number = _PIVOT_ROOT.get(platform.machine())
    if number is not None and _libc.syscall(number, b".", b".") == 0:
        _check(_libc.umount2(b".", MNT_DETACH), "detach the old root")
    else:  # no pivot_root (or a rootfs root): move the new root over / and chroot into it
        _mount(".", "/", None, MS_MOVE, None)
        _check(_libc.chroot(b"."), "chroot")
    os.chdir("/")


PRIVATE_DIRS = ("/tmp", "/var/tmp", "/dev/shm")


def _mask(root: str, masks: list[str], masked: set[str]) -> None:
    """Cover each masked path present in the new root: a directory by an empty tmpfs, a file
    by /dev/null."""
    for path in masks:
        target = root + path
        if path in masked or not os.path.lexists(target) or os.path.islink(target):
            continue  # not bound: already out of sight
        if os.path.isdir(target):
            _mount("edgeagent-mask", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0700")
        else:
            _mount("/dev/null", target, None, MS_BIND, None)
        masked.add(path)


def main(argv: list[str]) -> int:
    ws, size, shell, command, *extra = argv
    # bound (and loopback up) while CAP_NET_ADMIN and CAP_NET_BIND_SERVICE are still held,
    # and listening before the command starts: its first connect cannot be refused
    forward = _forward_spec(extra)
    relay = _prepare_relay(*forward) if forward else None
    quota = _quota_spec(extra)
    if quota is not None:  # before any mount: this file's directory may be under /tmp
        sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # after the stdlib's own
        import signal  # noqa: F401 (kept in sys.modules for _init and _Layer.finish)

        import overlay_merge  # noqa: F401 (kept in sys.modules for _Layer.finish)
    binds = sorted({e[5:] for e in extra if e.startswith("bind:") and os.path.lexists(e[5:])})
    masks = sorted({e[5:] for e in extra if e.startswith("mask:") and os.path.lexists(e[5:])})
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    ws_fd = os.open(ws, os.O_PATH | os.O_DIRECTORY)
    # A bind inside another comes with it. One inside a mask or a private tmpfs (a venv under
    # /tmp) is bound late, over them. A symlink (/bin -> usr/bin) is recreated as one.
    late = [b for b in binds if any(_inside(b, m) for m in (*masks, *PRIVATE_DIRS))]
    early = [b for b in binds if b not in late]
    tops = [b for b in early if not any(o != b and _inside(b, o) for o in early)]
    late = [b for b in late if not any(o != b and _inside(b, o) for o in late)]
    fds = {b: os.open(b, os.O_PATH) for b in tops + late if not os.path.islink(b)}
    root = "/tmp"  # the new root: a tmpfs over the old /tmp, which nothing below needs
    _mount("edgeagent-root", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    _bind_tops(root, tops, fds)
    _make_dev(root)
    _make_proc(root)
    for d in ("/tmp", "/var/tmp", ws):
        if not any(_inside(d, b) for b in tops):  # never create anything in a bound tree
            os.makedirs(root + d, exist_ok=True)
    # Everything is mounted before pivot_root: a bind's source must still be reachable.
    _read_only(root)
    for d in PRIVATE_DIRS:
        _mount("edgeagent-tmp", root + d, "tmpfs", MS_NOSUID | MS_NODEV,
               f"size={size},mode=1777")
    masked: set[str] = set()
    _mask(root, masks, masked)
    for path in late:  # needed, but inside a mask or a private tmpfs: bound back read-only
        if path in fds and os.path.isdir(f"/proc/self/fd/{fds[path]}"):
            os.makedirs(root + path, exist_ok=True)
            _bind_fd(fds[path], root + path)
            _read_only(root + path)
    _mask(root, masks, masked)  # what a late bind brought back (edgeagent in a venv in /tmp)
    for path in masked:
        if os.path.isdir(root + path):
            _read_only(root + path)
    for fd in fds.values():
        os.close(fd)
    os.makedirs(root + ws, exist_ok=True)
    layer = _mount_workspace(ws_fd, root + ws, quota)
    os.close(ws_fd)
    _pivot(root)
    os.chdir(ws)
    _drop_privileges()
    if os.getpid() == 1 or relay is not None:
        return _init(shell, command, relay, layer)
    os.execv(shell, [shell, "-c", command])
    return CANNOT_CONFINE  # not reached


LAYER_SPARE_INODES = 5  # the layer tmpfs's own: its root, upper/, work/, work/work, one more
FULL_MARGIN = 64 * 1024  # less free than this in the layer: the command filled it


class _Layer:
    """The workspace as the command saw it, an overlay: where its changes wait (upper, a
    size-capped tmpfs), the real workspace they go to, and where the result is reported."""

    def __init__(self, upper: int, real: int, status: int) -> None:
        self.upper, self.real, self.status = upper, real, status

    def finish(self) -> None:
        """Merge the changes into the real workspace, then report on the status descriptor
        (after `started`, written when the layer was mounted): `merged`, then `full bytes` /
        `full entries` when the command filled its layer, `problem LINE` for
        each change that could not be applied, `problems N` for how many in all."""
        import signal

        import overlay_merge  # loaded by main before the mounts: its directory may be gone

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a file over RLIMIT_FSIZE: EFBIG, a line
        lines = ["merged"]  # last: a report without it was cut short (pid 1 killed)
        vfs = os.fstatvfs(self.upper)
        if vfs.f_bavail * vfs.f_frsize < FULL_MARGIN:
            lines.append("full bytes")
        if vfs.f_favail == 0:
            lines.append("full entries")
        try:
            problems = overlay_merge.merge(self.upper, self.real)
            lines += [f"problem {line}" for line in problems.lines]
            count = problems.count
        except OSError as exc:  # the real workspace itself: gone, read-only, full
            lines.append(f"problem the workspace: {exc.strerror or exc}")
            count = 1
        if count:
            lines.append(f"problems {count}")
        os.write(self.status, "\n".join(lines).encode("utf-8", "replace")[:4000])
        os.close(self.status)


def _quota_spec(extra: list[str]) -> tuple[int, int, int] | None:
    """(bytes, entries, status descriptor) from the one `quota:BYTES:ENTRIES:FD` entry."""
    specs = [e[len("quota:"):] for e in extra if e.startswith("quota:")]
    if not specs:
        return None
    if len(specs) > 1:
        raise ValueError("more than one quota: entry")
    size, entries, fd = (int(x) for x in specs[0].split(":"))
    if size <= 0 or entries <= 0:
        raise ValueError(f"bad quota: entry {specs[0]!r}")
    if os.getpid() != 1:  # only a namespace's pid 1 outlives every process of the command
        raise ValueError("quota: needs a pid namespace (unshare --pid)")
    os.fstat(fd)  # the caller's status pipe: there, and never passed on to the command
    os.set_inheritable(fd, False)
    return size, entries, fd


def _mount_workspace(ws_fd: int, target: str,
                     quota: tuple[int, int, int] | None) -> _Layer | None:
    """The workspace at target, writable: bound as it is, or (with a quota) as an overlay
    whose upper layer is a tmpfs of that size and entry count, the real workspace below it
    untouched until _Layer.finish. A read-only workspace is bound: the command meets EROFS."""
    here = f"/proc/self/fd/{ws_fd}"  # its path may be covered: the new root is over /tmp
    if quota is None or _rofs(here):
        _bind_fd(ws_fd, target, recursive=False)
        # writable: a new bind is, whatever its parent; no set-uid files or devices in it
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, None)
        return None
    size, entries, status = quota
    _mount("edgeagent-layer", target, "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={size},nr_inodes={entries + LAYER_SPARE_INODES},mode=0700")
    os.mkdir(target + "/upper")
    os.chmod(target + "/upper", os.stat(ws_fd).st_mode & 0o7777)  # the merged root's own mode
    os.mkdir(target + "/work", 0o700)
    upper = os.open(target + "/upper", os.O_RDONLY | os.O_DIRECTORY)
    work = os.open(target + "/work", os.O_PATH | os.O_DIRECTORY)
    # no redirects or metacopy: a renamed directory or a chmod-ed file would otherwise be
    # a pointer into the lower layer, which the merge does not follow
    _mount("edgeagent-workspace", target, "overlay", MS_NOSUID | MS_NODEV,
           f"lowerdir=/proc/self/fd/{ws_fd},upperdir=/proc/self/fd/{upper},"
           f"workdir=/proc/self/fd/{work},userxattr,redirect_dir=nofollow,metacopy=off,index=off")
    os.close(work)
    real = os.open(here, os.O_RDONLY | os.O_DIRECTORY)
    os.write(status, b"started\n")
    return _Layer(upper, real, status)


def _bind_tops(root: str, tops: list[str], fds: dict[str, int]) -> None:
    """Each outermost bind at the same path under the new root (read-only comes later); a
    symlink is recreated as one, a file is bound over an empty file."""
    for path in tops:
        target = root + path
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.islink(path):
            os.symlink(os.readlink(path), target)
        elif os.path.isdir(path):
            os.mkdir(target)
            _bind_fd(fds[path], target)
        else:
            open(target, "w").close()
            _bind_fd(fds[path], target, recursive=False)


PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
SECCOMP_MODE_FILTER = 2
# NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED, NO_CAP_AMBIENT_RAISE, each with its lock: uid 0
# gains nothing from exec or setuid
_SECUREBITS = 0x1 | 0x2 | 0x4 | 0x8 | 0x20 | 0x40 | 0x80
_CAP_VERSION_3 = 0x20080522
# (AUDIT_ARCH, add_key, request_key, keyctl) for the ABIs a process here can call the
# kernel through; x86_64's x32 calls (nr | 0x40000000) are refused as a whole
_KEYRING_CALLS = {
    "x86_64": ((0xC000003E, 248, 249, 250), (0x40000003, 286, 287, 288)),
    "aarch64": ((0xC00000B7, 217, 218, 219), (0x40000028, 309, 310, 311)),
    "riscv64": ((0xC00000F3, 217, 218, 219),),
    "armv7l": ((0x40000028, 309, 310, 311),),
    "armv6l": ((0x40000028, 309, 310, 311),),
    "ppc64le": ((0xC0000015, 269, 270, 271),),
    "s390x": ((0x80000016, 278, 279, 280),),
    "i686": ((0x40000003, 286, 287, 288),),
}


def _keyring_filter() -> bytes:
    """A classic-BPF seccomp program: the keyring calls fail with EPERM, all else runs."""
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    prog: list[tuple[int, int, int, int]] = []
    denies: list[int] = []  # instructions whose true branch must reach the deny
    for arch, *calls in _KEYRING_CALLS.get(platform.machine(), ()):
        block_len = 2 + len(calls) + (1 if arch == 0xC000003E else 0) + 1
        prog.append((ld, 0, 0, 4))  # seccomp_data.arch
        prog.append((jeq, 0, block_len - 1, arch))
        prog.append((ld, 0, 0, 0))  # seccomp_data.nr
        if arch == 0xC000003E:
            denies.append(len(prog))
            prog.append((jge, 0, 0, 0x40000000))
        for nr in calls:
            denies.append(len(prog))
            prog.append((jeq, 0, 0, nr))
        prog.append((ret, 0, 0, allow))
    prog.append((ret, 0, 0, allow))
    deny_at = len(prog)
    prog.append((ret, 0, 0, deny))
    for i in denies:
        code, _, jf, k = prog[i]
        prog[i] = (code, deny_at - i - 1, jf, k)
    return b"".join(struct.pack("HBBI", *ins) for ins in prog)


def _drop_privileges() -> None:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            last = int(f.read())
    except (OSError, ValueError):
        last = 40
    _libc.prctl(PR_SET_SECUREBITS, _SECUREBITS, 0, 0, 0)  # best effort; the sets below rule
    for cap in range(last + 1):
        _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"drop capability {cap}")
    _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header = struct.pack("Ii", _CAP_VERSION_3, 0)
    data = bytes(24)  # two (effective, permitted, inheritable) triples, all empty
    _check(_libc.capset(header, data), "clear the capability sets")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "set no_new_privs")
    program = _keyring_filter()
    count = len(program) // 8
    if count > 2:
        buf = ctypes.create_string_buffer(program, len(program))
        fprog = _SockFprog(count, ctypes.addressof(buf))
        _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0),
               "install the seccomp filter")


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _init(shell: str, command: str, relay: threading.Thread | None = None,
          layer: _Layer | None = None) -> int:
    """PID 1 of the namespace: run the shell as a child (pid 1 ignores `kill -9 $$`), reap
    orphans, exit with the shell's status; the kernel then kills whatever is left.

    Also the supervisor that runs the endpoint relay (pid 1 or not): its threads start only
    after the fork, so the shell is forked from a single-threaded process, and they end with
    this process, so the relay never outlives the shell nor holds up its exit status.

    Not dumpable: a process of the same uid and capabilities (the command) could otherwise
    ptrace it and rewrite the exit status it reports or the bytes it relays. The shell
    inherits the flag until its execv, which gives an ordinary program its own back.

    With a layer (the workspace as an overlay), the shell's end or SIGUSR1 (the caller's
    timeout) ends every other process of the namespace, then the layer is merged into the
    real workspace before this process exits: nothing writes while it is merged."""
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "make the supervisor undumpable")
    if layer is not None:
        import signal

        signal.signal(signal.SIGUSR1, lambda *_: _kill_others())
    child = os.fork()
    if child == 0:
        try:
            os.execv(shell, [shell, "-c", command])
        finally:
            os._exit(127)
    if relay is not None:
        relay.start()
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return CANNOT_CONFINE
        if pid == child:
            if layer is not None:
                _end_all()
                layer.finish()
            if os.WIFSIGNALED(status):
                return 128 + os.WTERMSIG(status)
            return os.WEXITSTATUS(status)


def _kill_others() -> None:
    """SIGKILL every process of this pid namespace but its pid 1 (this one)."""
    try:
        os.kill(-1, 9)  # SIGKILL (the signal module is not loaded without a layer)
    except ProcessLookupError:
        pass


def _end_all() -> None:
    """Kill and reap until this pid 1 has no process left under it (a fork bomb forks while
    it is killed: again until none is left)."""
    while True:
        _kill_others()
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


SIOCGIFFLAGS = 0x8913  # the same on every Linux architecture (linux/sockios.h)
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
_IFREQ = "16sH22x"  # struct ifreq: the name, then ifr_flags in a union of 24 bytes
_RELAY_CHUNK = 64 * 1024
_RELAY_STACK = 512 * 1024  # per relay thread: a few frames deep, far below the 8 MB default


def _forward_spec(extra: list[str]) -> tuple[int, str] | None:
    """(port, Unix socket path) from the one `forward:PORT:PATH` entry, if any."""
    specs = [e[len("forward:"):] for e in extra if e.startswith("forward:")]
    if not specs:
        return None
    if len(specs) > 1:
        raise ValueError("more than one forward: entry")
    port, path = specs[0].split(":", 1)
    if not 0 < int(port) < 65536 or not os.path.isabs(path):
        raise ValueError(f"bad forward: entry {specs[0]!r}")
    return int(port), path


def _prepare_relay(port: int, path: str) -> threading.Thread:
    """Bring up loopback in this network namespace, listen on 127.0.0.1:port there and return
    the relay's thread, not yet started. Everything the relay needs is imported here: after
    pivot_root a module outside the bound directories (this Python's own) is out of reach."""
    import fcntl
    import socket
    import threading

    with open("/proc/self/net/dev") as f:  # this process's network namespace
        others = {line.split(":", 1)[0].strip() for line in f if ":" in line} - {"lo"}
    if others:  # the host's own: never bind a relay beside its services
        raise ValueError("forward: needs an empty network namespace (unshare --net)")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as ctl:
        got = fcntl.ioctl(ctl, SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0))
        flags = struct.unpack(_IFREQ, got)[1]
        fcntl.ioctl(ctl, SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | IFF_UP))
    # close-on-exec, as every socket Python makes: the command never holds the listener
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    threading.stack_size(_RELAY_STACK)
    return threading.Thread(target=_accept_loop, args=(listener, path), daemon=True)


def _accept_loop(listener: socket.socket, path: str) -> None:
    """Each accepted connection gets its own threads: one slow reader (a stream the agent
    has not read yet) must not hold up another connection."""
    import threading
    import time  # built into the interpreter: importable after pivot_root

    while True:
        try:
            conn, _ = listener.accept()
        except OSError:  # out of descriptors or a connection reset before accept: go on
            time.sleep(0.05)
            continue
        try:
            threading.Thread(target=_relay_one, args=(conn, path), daemon=True).start()
        except RuntimeError:  # no thread to spare (the pids limit): this one is refused
            conn.close()


def _relay_one(conn: socket.socket, path: str) -> None:
    import socket
    import threading

    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:  # our server is not there: the client sees the connection closed
        upstream.close()
        conn.close()
        return
    back = threading.Thread(target=_copy, args=(upstream, conn), daemon=True)
    try:
        back.start()
    except RuntimeError:  # no thread to spare (the pids limit): this one is refused
        upstream.close()
        conn.close()
        return
    _copy(conn, upstream)
    back.join()
    upstream.close()
    conn.close()


def _copy(src: socket.socket, dst: socket.socket) -> None:
    """Bytes from src to dst until src ends; its end is passed on as a half-close (a client
    may send its request, shut its side and still read the answer)."""
    import socket

    try:
        while data := src.recv(_RELAY_CHUNK):
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:  # one side is gone: end both directions, waking the other thread
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (OSError, ValueError, ImportError) as exc:
        print(f"edgeagent sandbox: cannot confine the command: {exc}", file=sys.stderr)
        sys.exit(CANNOT_CONFINE)
