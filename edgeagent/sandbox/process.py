"""Run one shell command for the agent: own session, timeout, rlimits, no network, capped output.

This confines mistakes (a runaway loop, a fork bomb's children, a 10 GB log, a test that calls
the internet, a write to ~ or /tmp), not a determined attacker: the command runs as the same
user as edgeagent. Where the machine allows it (probed once, reported by isolation_report):
- a private mount namespace where everything is read-only except the workspace, and /tmp,
  /var/tmp, /dev/shm and the host's home are private tmpfs (confine.py);
- a pids cgroup per command that caps the process count (RLIMIT_NPROC does not bind root) and
  lists every process the command started, so even one that left the session is killed;
- with ProcessLimits.endpoint, one endpoint of ours relayed into the empty network namespace
  at 127.0.0.1:port (confine.py), nothing else reachable.
"""

from __future__ import annotations

import functools
import itertools
import os
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from .command_limits import DEFAULT_COMMAND_TIMEOUT_S
from .disk import POLL_S as DISK_POLL_S
from .disk import DiskWatch, Layer, mb
from .special_files import SpecialFiles

_READ_CHUNK = 64 * 1024
# Where pidfds are missing, the longest wait between checks for an exited shell.
_POLL_S = 0.05
# After the group is killed, how long to wait for the pipe to reach EOF (a process that left
# the session could hold it open forever).
_DRAIN_S = 1.0
_PROBE_TIMEOUT_S = 5.0
_CONFINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py")
_TMPFS_SIZE = "256m"  # each private tmpfs; memory-backed, so bounded
_CGROUP_V1 = {"pids": "/sys/fs/cgroup/pids", "memory": "/sys/fs/cgroup/memory"}
_CGROUP_V2 = "/sys/fs/cgroup"
# How long pid 1 of a command's namespace may take to merge its workspace layer once asked.
_MERGE_WAIT_S = 30.0
# How often a command that may be cancelled from another thread looks at its flag.
_CANCEL_POLL_S = 0.1
# What a command sees of the host: system directories, bound read-only (a symlink such as
# /bin -> usr/bin is recreated as one); the Python installations are added per process.
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                "/nix/store")
# Inside those, never shown: credentials root can read, the host's key names.
_SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh",
            "/etc/ssl/private", "/etc/sudoers", "/etc/sudoers.d",
            "/proc/keys", "/proc/key-users")  # the keyring's names, though not its contents
_SPECIAL_FILES = SpecialFiles()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_cgroup_seq = itertools.count()
_PR_SET_PDEATHSIG = 1


def _load_libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _load_libc()


@dataclass(frozen=True)
class ProcessLimits:
    """What one command may use. `endpoint` = (port, path) lets a command with network=False
    reach our server, listening on the Unix socket path, at http://127.0.0.1:port and reach
    nothing else: inside its empty network namespace loopback is brought up and a relay
    without capabilities, living exactly as long as the command, carries each connection to
    127.0.0.1:port to the socket, whose directory is shown read-only (use a private directory
    holding only the socket, never the workspace). It needs both the network namespace and the
    filesystem confinement (isolation_report: network and filesystem start with "unshare").
    Without the confinement the namespace still isolates but nothing relays, so the endpoint
    is unreachable. Without a network namespace (network=True, or the probe failed) nothing is
    added: the command shares the host's loopback and reaches 127.0.0.1:port only if something
    listens on TCP there, along with every other service on the host's loopback."""

    timeout_s: float = DEFAULT_COMMAND_TIMEOUT_S
    cpu_s: int = 120
    address_space_bytes: int = 4 << 30
    file_size_bytes: int = 64 << 20
    max_processes: int = 512
    output_cap_bytes: int = 64 * 1024
    network: bool = False  # False -> run in an empty network namespace where this machine allows
    memory_bytes: int = 2 << 30  # all the command's processes together (cgroup)
    disk_bytes: int = 256 << 20  # what one command may add to the workspace
    workspace_bytes: int = 2 << 30  # the whole workspace (hard bound only; see disk.py)
    disk_entries: int = 100_000  # files and directories one command may add
    hide: tuple[str, ...] = ()  # paths never shown to the command (suites, run dir, models)
    # directories shown read-only beside the system's and Python's: an agent's own environment
    show: tuple[str, ...] = ()
    # (port, Unix socket path): the one endpoint the command may reach, as 127.0.0.1:port
    endpoint: tuple[int, str] | None = None


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None when killed on timeout; 128+N when killed by signal N
    output: str  # stdout+stderr interleaved, capped, with a marker line when capped
    timed_out: bool
    truncated: bool
    output_bytes: int  # total bytes the command printed, including what was dropped
    wall_ms: float
    limit_hit: str | None = None  # which limit killed it, as one line for the agent
    limit_killed: bool = True  # False: the limit refused writes (a full layer), killed nothing


def truncation_marker(total: int, head: int, tail: int) -> str:
    return (
        f"[... output truncated: {total} bytes total, "
        f"showing first {head} and last {tail} bytes ...]"
    )


class _Capture:
    """Keeps the first and last halves of the cap, so memory stays bounded for any output."""

    def __init__(self, cap: int) -> None:
        cap = max(cap, 0)
        self.head_cap = cap // 2
        self.tail_cap = cap - self.head_cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            excess = len(self.tail) - self.tail_cap
            if excess > 0:
                del self.tail[:excess]

    @property
    def truncated(self) -> bool:
        return self.total > self.head_cap + self.tail_cap

    def text(self) -> str:
        if not self.truncated:
            # Decode as one piece so a character split across head and tail survives.
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if head and not head.endswith("\n"):
            head += "\n"
        marker = truncation_marker(self.total, len(self.head), len(self.tail))
        return f"{head}{marker}\n{tail}"


def scrubbed_env(cwd: Path) -> dict[str, str]:
    """The whole environment a command sees: nothing (tokens, proxies) leaks from ours."""
    # Not resolved: a venv's python is a symlink, and resolving it would lose the venv.
    python_dir = os.path.dirname(os.path.abspath(sys.executable))
    path = os.pathsep.join(dict.fromkeys([python_dir, "/usr/local/bin", "/usr/bin", "/bin"]))
    return {
        "PATH": path,
        "HOME": os.path.abspath(cwd),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        # stdout and stderr share one pipe; unbuffered keeps a traceback next to its prints.
        "PYTHONUNBUFFERED": "1",
    }


def _rlimit_table(limits: ProcessLimits) -> list[tuple[str, int, int]]:
    wanted = [
        ("RLIMIT_CPU", limits.cpu_s),
        ("RLIMIT_AS", limits.address_space_bytes),
        ("RLIMIT_FSIZE", limits.file_size_bytes),
        ("RLIMIT_NPROC", limits.max_processes),
    ]
    # RLIMIT_NPROC is missing on some platforms; a limit the OS lacks is simply not set.
    return [(n, getattr(resource, n), int(v)) for n, v in wanted if hasattr(resource, n)]


def _apply_rlimits(table: list[tuple[str, int, int]], cgroup_fds: tuple[int, ...] = ()) -> None:
    # Runs in the forked child before exec: only setrlimit calls, nothing that takes locks.
    for cgroup_fd in cgroup_fds:
        try:
            os.write(cgroup_fd, b"0")  # "0": the writing process; its children follow it
        except OSError:
            pass
    if _LIBC is not None:
        # If edgeagent itself is killed (SIGKILL, OOM) the command must not live on: the
        # kernel kills it when we die (and unshare --kill-child passes that on).
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    for name, res, value in table:
        try:
            _, hard = resource.getrlimit(res)
            # The soft CPU limit sends SIGXCPU; the hard one, a second later, SIGKILL.
            new_hard = value + 1 if name == "RLIMIT_CPU" else value
            if hard != resource.RLIM_INFINITY:
                new_hard = min(new_hard, hard)
            resource.setrlimit(res, (min(value, new_hard), new_hard))
        except (ValueError, OSError):
            pass  # a limit the kernel refuses must not stop the command; the report says so


@functools.lru_cache(maxsize=1)
def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def _net_interfaces(proc_net_dev: str) -> set[str]:
    return {line.split(":", 1)[0].strip() for line in proc_net_dev.splitlines() if ":" in line}


@functools.lru_cache(maxsize=1)
def _network_probe() -> tuple[tuple[str, ...], str]:
    """(argv prefix, description). Probed once: unshare's behaviour does not change mid-run."""
    unshare = _unshare()
    if unshare is None:
        return (), "none: unshare not found"
    reasons = []
    # Plain --net needs CAP_SYS_ADMIN (root); --map-root-user lets an ordinary user in
    # through a user namespace where the kernel allows one.
    for flags in (("--net",), ("--net", "--map-root-user")):
        label = "unshare " + " ".join(flags)
        try:
            done = subprocess.run(
                [unshare, *flags, "cat", "/proc/net/dev"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_PROBE_TIMEOUT_S,
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"},
            )
        except (OSError, subprocess.SubprocessError) as exc:
            reasons.append(f"{label}: {exc}")
            continue
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            reasons.append(f"{label}: {err[-1] if err else f'exit code {done.returncode}'}")
            continue
        # /proc/net follows the reader's namespace, so this proves the host NICs are gone.
        visible = _net_interfaces(done.stdout.decode("utf-8", "replace")) - {"lo"}
        if visible:
            reasons.append(f"{label}: interfaces still visible: {', '.join(sorted(visible))}")
            continue
        return (unshare, *flags), label
    return (), "none: " + "; ".join(reasons)


def _unshare() -> str | None:
    return shutil.which("unshare") or next(
        (p for p in ("/usr/bin/unshare", "/bin/unshare") if os.path.exists(p)), None
    )


def _python_dirs() -> list[str]:
    """The Python installations commands run and the package directories on our sys.path
    (a venv's or the user's site-packages): the libraries a task's tests import. Not the
    rest of sys.path: a checkout there holds the suites."""
    dirs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs |= {os.path.realpath(p) for p in sys.path
             if p and os.path.basename(p.rstrip("/")) in ("site-packages", "dist-packages")
             and os.path.isdir(p)}
    return sorted(dirs)


def _hidden_paths(extra: tuple[str, ...] = ()) -> list[str]:
    """Paths a command must not see even where a bound directory holds them: edgeagent's own
    package (a wheel brings the suites along), credentials, and what the caller names."""
    installed = [os.path.join(d, "edgeagent") for d in _python_dirs()]  # another copy's too
    return sorted({_PACKAGE_DIR, *_SECRETS, *(os.path.realpath(p) for p in extra),
                   *(p for p in installed if os.path.isdir(p))})


def _confine_argv(workspace: Path, command: str, hide: tuple[str, ...] = (),
                  endpoint: tuple[int, str] | None = None, probe: bool = False,
                  show: tuple[str, ...] = ()) -> list[str]:
    bound = [*_SYSTEM_DIRS, *_python_dirs(), *(os.path.realpath(d) for d in show)]
    where = os.path.realpath(workspace)
    # FIFOs and sockets in what is bound: read-only does not stop their use, a mask does.
    # Looked at again for each new workspace; a probe's own is not one. The Nix store holds
    # none (its archive format has no FIFOs or sockets) and can hold millions of files.
    scanned = [d for d in bound if not (d == "/nix/store" or d.startswith("/nix/store/"))]
    specials = _SPECIAL_FILES.under(scanned, None if probe else where)
    return [sys.executable, "-I", "-S", _CONFINE, where, _TMPFS_SIZE,
            _shell(), command, *(f"bind:{d}" for d in bound),
            *(f"mask:{d}" for d in (*_hidden_paths(hide), *specials)),
            *_forward_args(endpoint)]


def _forward_args(endpoint: tuple[int, str] | None) -> list[str]:
    """confine.py's entries for the endpoint: the socket's directory bound into the new root
    (a socket file cannot be bound on its own before it exists; the directory shows it live)
    and the relay's port and socket path."""
    if endpoint is None:
        return []
    port, path = endpoint
    path = os.path.realpath(path)
    return [f"bind:{os.path.dirname(path)}", f"forward:{int(port)}:{path}"]


@functools.lru_cache(maxsize=1)
def _filesystem_probe() -> tuple[tuple[str, ...], str]:
    """(unshare flags, description) for the private read-only mount namespace, or ((), why)."""
    unshare = _unshare()
    if unshare is None:
        return (), "none: unshare not found"
    import tempfile

    reasons = []
    # --pid with its own /proc: the command cannot see (or read the environment of) any
    # process but its own; when the namespace's first process dies, all of them die.
    pid_ns = ("--pid", "--fork", "--kill-child", "--mount-proc")
    # --ipc: SysV shared memory, semaphores and message queues of the command's own
    for flags in (("--mount", "--ipc", *pid_ns), ("--mount", "--ipc", "--map-root-user", *pid_ns),
                  ("--mount", *pid_ns), ("--mount", "--map-root-user", *pid_ns),
                  ("--mount", "--ipc"), ("--mount",), ("--mount", "--map-root-user")):
        label = "unshare " + " ".join(flags)
        with tempfile.TemporaryDirectory(prefix="edgeagent-probe-") as tmp:
            ws = Path(tmp, "ws")
            ws.mkdir()
            outside = Path(tmp, "outside")
            check = (f"echo in > inside && (echo out > {outside}) 2>/dev/null; "
                     "! (echo x > /.edgeagent-probe) 2>/dev/null && "
                     f"! test -e {_PACKAGE_DIR}/__init__.py && ! test -e /dev/kmsg && "
                     "! umount /tmp 2>/dev/null && echo confined")
            try:
                done = subprocess.run(
                    [unshare, *flags, *_confine_argv(ws, check, probe=True)], cwd=ws,
                    stdin=subprocess.DEVNULL, capture_output=True, timeout=_PROBE_TIMEOUT_S,
                    env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"},
                )
            except (OSError, subprocess.SubprocessError) as exc:
                reasons.append(f"{label}: {exc}")
                continue
            out = done.stdout.decode("utf-8", "replace")
            if done.returncode != 0 or "confined" not in out:
                reasons.append(f"{label}: {_last_line(done)}")
                continue
            if outside.exists() or not (ws / "inside").exists():
                reasons.append(f"{label}: writes were not confined to the workspace")
                continue
        what = ("own root: system and Python directories read-only (FIFOs and sockets in them "
                "covered), the workspace writable, "
                "minimal /dev, private /tmp; no capabilities, no_new_privs, no keyring")
        if "--ipc" in flags:
            what += "; own IPC namespace"
        if "--pid" in flags:
            what += "; own pid namespace"
        return flags, f"{label}: {what}"
    return (), "none: " + "; ".join(reasons)


def _last_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """Why a probe's command failed: its last line of output, or its exit code."""
    err = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    return err[-1] if err else f"exit code {done.returncode}"


@functools.lru_cache(maxsize=1)
def _layer_probe() -> tuple[bool, str]:
    """(whether commands get the hard disk bound, description): a confined command in a 1 MB
    layer deletes a file, replaces a directory and writes past the bound; the merge must keep
    exactly what it did and the bound must hold."""
    flags = _filesystem_probe()[0]
    unshare = _unshare()
    if "--pid" not in flags or unshare is None:
        return False, "polled: the hard bound needs the filesystem confinement in a pid namespace"
    import tempfile

    with tempfile.TemporaryDirectory(prefix="edgeagent-probe-") as tmp:
        ws = Path(tmp, "ws")
        (ws / "d").mkdir(parents=True)
        (ws / "d" / "old").write_text("old\n")
        (ws / "gone").write_text("gone\n")
        check = ("rm gone && rm -r d && mkdir d && echo new > d/new && "
                 "! head -c 2M /dev/zero > big 2>/dev/null && echo bounded")
        layer = Layer(1 << 20, 64, 0, 1 << 30)
        status_r, status_w = os.pipe()
        try:
            done = subprocess.run(
                [unshare, *flags, *_confine_argv(ws, check, probe=True),
                 layer.argument(status_w)], cwd=ws,
                stdin=subprocess.DEVNULL, capture_output=True, timeout=_PROBE_TIMEOUT_S,
                env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"}, pass_fds=(status_w,))
        except (OSError, subprocess.SubprocessError) as exc:
            return False, f"polled: the overlay probe failed ({exc})"
        finally:
            os.close(status_w)
        status = _read_status(status_r) or ""
        kept = ((ws / "d" / "new").exists() and not (ws / "d" / "old").exists()
                and not (ws / "gone").exists() and (ws / "big").exists()
                and (ws / "big").stat().st_size <= 1 << 20)
        if done.returncode != 0 or b"bounded" not in done.stdout or not kept or \
                "full bytes" not in status.splitlines():
            return False, f"polled: no overlay for the workspace here ({_last_line(done)})"
    return True, ("hard: the workspace is an overlay whose changes wait in a size-capped tmpfs "
                  "(bytes and entries one command may add, and the whole workspace's bound); "
                  "writes past it fail with ENOSPC; merged back when the command ends")


def _try_cgroup(root: str, limits: dict[str, str]) -> str | None:
    """None when a child cgroup of root takes these limits, else why not."""
    probe = os.path.join(root, f"edgeagent-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        try:
            for name, value in limits.items():
                # O_WRONLY without O_CREAT: only the controller's own file will do
                fd = os.open(os.path.join(probe, name), os.O_WRONLY)
                try:
                    os.write(fd, value.encode())
                finally:
                    os.close(fd)
        finally:
            os.rmdir(probe)
    except OSError as exc:
        return f"{root}: {exc.strerror or exc}"
    return None


@functools.lru_cache(maxsize=1)
def _cgroup_probe() -> tuple[dict[str, str], str]:
    """({"pids": dir, "memory": dir} for what this machine allows, description)."""
    reasons: list[str] = []
    v2 = _CGROUP_V2
    if os.path.exists(os.path.join(v2, "cgroup.subtree_control")):
        # only what is already delegated: enabling a controller would change the host's setup
        found = {}
        for ctl, files in (("pids", {"pids.max": "16"}), ("memory", {"memory.max": "1G"})):
            why = _try_cgroup(v2, files)
            if why is None:
                found[ctl] = v2
            else:
                reasons.append(f"{ctl}: {why}")
        if found:
            _remove_stale_cgroups(v2)
            return found, "cgroup v2 under " + v2 + ": " + ", ".join(
                {"pids": "process count", "memory": "total memory"}[c] for c in found)
    found = {}
    for ctl, files in (("pids", {"pids.max": "16"}),
                       ("memory", {"memory.limit_in_bytes": str(1 << 30)})):
        root = _CGROUP_V1[ctl]
        if not os.path.exists(os.path.join(root, "cgroup.procs")):
            continue
        why = _try_cgroup(root, files)
        if why is None:
            found[ctl] = root
            _remove_stale_cgroups(root)
        else:
            reasons.append(f"{ctl}: {why}")
    if found:
        return found, "; ".join(
            f"{ctl} cgroup under {root}" for ctl, root in sorted(found.items()))
    return {}, "none: " + ("; ".join(reasons) or "no pids or memory cgroup controller found")


def _pids_cgroup_probe() -> tuple[str | None, str]:
    """(where per-command pids cgroups go, description); kept for the pids line of the report."""
    found, what = _cgroup_probe()
    if "pids" not in found:
        return None, what if what.startswith("none") else "none: no pids controller"
    return found["pids"], f"pids cgroup under {found['pids']}"


def _remove_stale_cgroups(root: str) -> None:
    """Empty cgroups left by an edgeagent that was killed before it could remove them."""
    try:
        names = [n for n in os.listdir(root) if n.startswith("edgeagent-")]
    except OSError:
        return
    for name in names:
        try:
            owner = int(name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if owner != os.getpid() and not psutil.pid_exists(owner):
            try:
                os.rmdir(os.path.join(root, name))  # fails, harmlessly, if not empty
            except OSError:
                pass


class _CommandCgroup:
    """One command's cgroups (one directory under cgroup v2, one per controller under v1):
    cap the process count and the memory of all processes together, list every process to
    kill, and tell whether the kernel killed one for memory."""

    def __init__(self, roots: dict[str, str], limits: ProcessLimits) -> None:
        name = f"edgeagent-{os.getpid()}-{next(_cgroup_seq)}"
        self.paths: list[str] = []
        self.procs_fds: list[int] = []
        self.memory_path: str | None = None
        try:
            for root in dict.fromkeys(roots.values()):
                path = os.path.join(root, name)
                os.mkdir(path)
                self.paths.append(path)
                self.procs_fds.append(os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY))
            if "pids" in roots:
                self._write(os.path.join(roots["pids"], name), "pids.max", limits.max_processes)
            if "memory" in roots:
                self.memory_path = os.path.join(roots["memory"], name)
                self.v2 = roots["memory"] == _CGROUP_V2
                if self.v2:
                    self._write(self.memory_path, "memory.max", limits.memory_bytes)
                    self._write(self.memory_path, "memory.swap.max", 0, optional=True)
                else:
                    self._write(self.memory_path, "memory.limit_in_bytes", limits.memory_bytes)
                    self._write(self.memory_path, "memory.memsw.limit_in_bytes",
                                limits.memory_bytes, optional=True)
        except OSError:
            self.remove()
            raise

    @staticmethod
    def _write(path: str, name: str, value: int, optional: bool = False) -> None:
        try:
            with open(os.path.join(path, name), "w") as f:
                f.write(str(value))
        except OSError:
            if not optional:
                raise

    def pids(self) -> list[int]:
        found: set[int] = set()
        for path in self.paths:
            try:
                with open(os.path.join(path, "cgroup.procs")) as f:
                    found |= {int(line) for line in f if line.strip()}
            except OSError:
                pass
        return sorted(found)

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this command for the memory limit."""
        if self.memory_path is None:
            return False
        try:
            if self.v2:
                with open(os.path.join(self.memory_path, "memory.events")) as f:
                    events = dict(line.split() for line in f if line.strip())
                return int(events.get("oom_kill", 0)) > 0
            with open(os.path.join(self.memory_path, "memory.oom_control")) as f:
                control = dict(line.split() for line in f if line.strip())
            if "oom_kill" in control:
                return int(control["oom_kill"]) > 0
            with open(os.path.join(self.memory_path, "memory.failcnt")) as f:
                return int(f.read()) > 0
        except (OSError, ValueError):
            return False

    def kill_all(self) -> None:
        # A fork bomb forks while it is killed: repeat until the group is empty.
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def remove(self) -> None:
        for fd in self.procs_fds:
            os.close(fd)
        self.procs_fds = []
        deadline = time.monotonic() + 1.0
        for path in self.paths:
            while True:  # killed processes leave the cgroup once reaped
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break  # left behind empty-ish; harmless, the name is never reused
                    time.sleep(0.01)


def _open_cgroup(limits: ProcessLimits) -> _CommandCgroup | None:
    roots = _cgroup_probe()[0]
    if not roots:
        return None
    try:
        return _CommandCgroup(roots, limits)
    except OSError:
        return None


def isolation_report() -> dict[str, Any]:
    """Which isolation run_command actually applies on this machine (probed once, cached)."""
    names = [name for name, _, _ in _rlimit_table(ProcessLimits())]
    report: dict[str, Any] = {
        "process_group": True,
        "rlimits": names,
        "env": "scrubbed",
        "stdin": "/dev/null",
        "shell": _shell(),
        "network": _network_probe()[1],
        "filesystem": _filesystem_probe()[1],
        "pids": _pids_cgroup_probe()[1],
        "memory": _memory_report(),
        "disk": _layer_probe()[1],
        "tools": "grep in a child process under the command timeout; write_file refuses "
                 "anything but a regular file",
    }
    if "RLIMIT_NPROC" in names and os.geteuid() == 0:
        report["rlimits_note"] = "RLIMIT_NPROC is set but not enforced: running as root"
    return report


def _memory_report() -> str:
    found, what = _cgroup_probe()
    if "memory" not in found:
        return (what if what.startswith("none") else "none: no memory controller") + \
            "; RLIMIT_AS per process only"
    return f"memory cgroup under {found['memory']}: all of a command's processes together"


def _leader_exited(pid: int) -> bool:
    # WNOWAIT leaves the shell a zombie, so its pid (= the group id) cannot be reused
    # before the group is killed.
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _open_pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)  # Linux >= 5.3: readable the moment the shell exits
    except (AttributeError, OSError):
        return None


def _pump(fd: int, pid: int, capture: _Capture, deadline: float,
          disk: DiskWatch | None = None, cancel: threading.Event | None = None) -> bool:
    """Read output until the shell exits or `cancel` is set; True if the deadline came
    first (or the disk limit: then disk.over says so).

    The shell's exit, not EOF, ends the command: a background child may hold the pipe open.
    """
    pidfd = _open_pidfd(pid)
    poll_s = 0.001  # without a pidfd, exit is polled, backing off to _POLL_S while idle
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ, "output")
            if pidfd is not None:
                sel.register(pidfd, selectors.EVENT_READ, "exit")
            while True:
                if _leader_exited(pid):
                    return False
                now = time.monotonic()
                remaining = deadline - now
                if remaining <= 0 or (disk is not None and disk.check(now)):
                    return True
                if cancel is not None and cancel.is_set():
                    return False
                wait = remaining if pidfd is not None else min(remaining, poll_s)
                if disk is not None:
                    wait = min(wait, DISK_POLL_S)
                if cancel is not None:
                    wait = min(wait, _CANCEL_POLL_S)
                events = sel.select(wait)
                for key, _ in events:
                    if key.data == "exit":
                        return False
                    chunk = os.read(fd, _READ_CHUNK)
                    if chunk:
                        capture.add(chunk)
                    else:
                        sel.unregister(fd)  # EOF; the shell may still be running
                poll_s = 0.001 if events else min(poll_s * 2, _POLL_S)
    finally:
        if pidfd is not None:
            os.close(pidfd)


def kill_session(pid: int) -> None:
    """SIGKILL the process group `pid` leads and every descendant of it, wherever it went."""
    try:
        descendants = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    # A child that moved to its own process group escapes killpg but not this; psutil checks
    # each process's start time, so a recycled pid is never hit.
    for child in descendants:
        try:
            child.kill()
        except psutil.Error:
            pass


def _drain(fd: int, capture: _Capture) -> None:
    deadline = time.monotonic() + _DRAIN_S
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while (remaining := deadline - time.monotonic()) > 0:
            if sel.select(remaining):
                chunk = os.read(fd, _READ_CHUNK)
                if not chunk:
                    return
                capture.add(chunk)


def _command_argv(command: str, cwd: Path, limits: ProcessLimits,
                  layer_arg: str | None = None) -> list[str]:
    net_flags = () if limits.network else _network_probe()[0][1:]
    fs_flags = _filesystem_probe()[0]
    flags = tuple(dict.fromkeys((*fs_flags, *net_flags)))
    unshare = _unshare()
    if not flags or unshare is None:
        return [_shell(), "-c", command]
    if fs_flags:
        # the relay only where the namespace is ours: on the host's loopback it would clash
        endpoint = limits.endpoint if net_flags else None
        layer = [layer_arg] if layer_arg else []
        return [unshare, *flags,
                *_confine_argv(cwd, command, limits.hide, endpoint, show=limits.show), *layer]
    return [unshare, *flags, _shell(), "-c", command]


def run_command(
    command: str, cwd: Path, limits: ProcessLimits, pass_fds: tuple[int, ...] = (),
    cancel: threading.Event | None = None,
) -> CommandResult:
    """Run `bash -c command` in cwd; the whole session is killed when it ends or times out,
    or when `cancel` is set (another thread saw a limit the command itself cannot: an
    agent's step limit at the endpoint). What it adds to the workspace is bounded (disk.py):
    hard where the machine allows it (its writes past the bound fail), else polled (it is
    killed past the bound).

    Background children left behind by a command that exited are killed too: nothing the
    agent starts outlives its command. `pass_fds` reach the command open (a result channel).
    """
    capture = _Capture(limits.output_cap_bytes)
    layer, poll = _disk_bound(Path(cwd), limits)
    status_r, status_w = os.pipe() if layer is not None else (-1, -1)
    try:
        argv = _command_argv(command, cwd, limits,
                             layer.argument(status_w) if layer is not None else None)
        cgroup = _open_cgroup(limits)
        start = time.monotonic()
        proc = _spawn(argv, cwd, limits, cgroup,
                      (*pass_fds, status_w) if layer is not None else pass_fds)
    except BaseException:
        _close_quietly(status_r)
        raise
    finally:
        _close_quietly(status_w)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    timed_out = True
    try:
        timed_out = _pump(fd, proc.pid, capture, start + limits.timeout_s, poll, cancel)
    finally:
        if layer is not None and not _leader_exited(proc.pid):
            _end_layered(proc.pid)  # pid 1 merges what the command wrote, then exits
        kill_session(proc.pid)
        if cgroup is not None:
            cgroup.kill_all()
        try:
            _drain(fd, capture)
        finally:
            proc.stdout.close()
            proc.wait()
            oom = cgroup is not None and cgroup.oom_killed()
            if cgroup is not None:
                cgroup.remove()
            layer_line = layer.outcome(_read_status(status_r)) if layer is not None else None
    wall_ms = (time.monotonic() - start) * 1000.0
    limit_hit, code, timed_out, killed = _limit_hit(poll, layer_line, oom, limits,
                                                    proc.returncode, timed_out)
    exit_code = None if timed_out else (128 - code if code < 0 else code)
    return CommandResult(
        exit_code=exit_code,
        output=capture.text(),
        timed_out=timed_out,
        truncated=capture.truncated,
        output_bytes=capture.total,
        wall_ms=wall_ms,
        limit_hit=limit_hit,
        limit_killed=killed,
    )


def _disk_bound(root: Path, limits: ProcessLimits) -> tuple[Layer | None, DiskWatch | None]:
    """The hard bound for this command where the machine has it, else the poll (started)."""
    if limits.disk_bytes <= 0:
        return None, None
    if _layer_probe()[0] and "--pid" in _filesystem_probe()[0]:  # pid 1 merges the layer
        return Layer.plan(root, limits.disk_bytes, limits.disk_entries,
                          limits.workspace_bytes), None
    poll = DiskWatch(root, limits.disk_bytes, limits.disk_entries)
    poll.start()
    return None, poll


def _end_layered(pid: int) -> None:
    """Ask pid 1 of the command's namespace (unshare's child) to end every process of the
    command and merge its workspace layer (SIGUSR1), and wait up to _MERGE_WAIT_S for it."""
    try:
        for child in psutil.Process(pid).children():
            child.send_signal(signal.SIGUSR1)
    except psutil.Error:
        return
    deadline = time.monotonic() + _MERGE_WAIT_S
    while not _leader_exited(pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _read_status(fd: int) -> str | None:
    """What pid 1 reported on the status pipe (everyone holding it is gone by now); None
    when it never finished its report."""
    chunks = []
    try:
        os.set_blocking(fd, False)
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    except BlockingIOError:
        pass
    finally:
        os.close(fd)
    text = b"".join(chunks).decode("utf-8", "replace")
    return text if "merged" in text.splitlines() or not text else None


def _close_quietly(fd: int) -> None:
    if fd >= 0:
        try:
            os.close(fd)
        except OSError:
            pass


def _spawn(
    argv: list[str], cwd: Path, limits: ProcessLimits, cgroup: _CommandCgroup | None,
    pass_fds: tuple[int, ...],
) -> subprocess.Popen[bytes]:
    """Start the command in its own session, rlimits and cgroup applied before exec; the
    cgroup is removed again if it cannot start."""
    try:
        return subprocess.Popen(
            argv,
            cwd=cwd,
            env=scrubbed_env(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=functools.partial(
                _apply_rlimits, _rlimit_table(limits),
                tuple(cgroup.procs_fds) if cgroup else ()
            ),
            close_fds=True,
            pass_fds=pass_fds,
        )
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        raise


def _limit_hit(
    poll: DiskWatch | None, layer_line: str | None, oom: bool, limits: ProcessLimits,
    code: int, timed_out: bool,
) -> tuple[str | None, int, bool, bool]:
    """Which limit ended or hindered the command, as one line for the agent (None: none
    did), with the exit code and timeout flag that follow and whether it was killed for it:
    a polled disk kill reads as SIGKILL, not a timeout; a full layer killed nothing."""
    if poll is not None and poll.over is not None:
        return poll.over.format(killed=" and was killed"), -signal.SIGKILL, False, True
    if poll is not None and poll.check(time.monotonic(), final=True):
        # over the limit between two polls: the command finished first; said all the same
        return poll.over.format(killed=""), code, timed_out, True
    if oom:
        line = (f"the command's processes used more than {mb(limits.memory_bytes)} of "
                "memory together (the limit per command); the kernel killed one")
        return "; ".join(filter(None, (line, layer_line))), code, timed_out, True
    return layer_line, code, timed_out, False
