"""Run one shell command for the agent: own session, timeout, rlimits, no network, capped output.

This confines mistakes (a runaway loop, a fork bomb's children, a 10 GB log, a test that calls
the internet, a write to ~ or /tmp), not a determined attacker: the command runs as the same
user as edgeagent. Where the machine allows it (probed once, reported by isolation_report):
- a private mount namespace where everything is read-only except the workspace, and /tmp,
  /var/tmp, /dev/shm and the host's home are private tmpfs (confine.py);
- a pids cgroup per command that caps the process count (RLIMIT_NPROC does not bind root) and
  lists every process the command started, so even one that left the session is killed.
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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

_READ_CHUNK = 64 * 1024
# Where pidfds are missing, the longest wait between checks for an exited shell.
_POLL_S = 0.05
# After the group is killed, how long to wait for the pipe to reach EOF (a process that left
# the session could hold it open forever).
_DRAIN_S = 1.0
_PROBE_TIMEOUT_S = 5.0
_CONFINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py")
_TMPFS_SIZE = "256m"  # each private tmpfs; memory-backed, so bounded
_CGROUP_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")
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
    timeout_s: float = 60.0
    cpu_s: int = 120
    address_space_bytes: int = 4 << 30
    file_size_bytes: int = 64 << 20
    max_processes: int = 512
    output_cap_bytes: int = 64 * 1024
    network: bool = False  # False -> run in an empty network namespace where this machine allows


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None  # None when killed on timeout; 128+N when killed by signal N
    output: str  # stdout+stderr interleaved, capped, with a marker line when capped
    timed_out: bool
    truncated: bool
    output_bytes: int  # total bytes the command printed, including what was dropped
    wall_ms: float


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


def _apply_rlimits(table: list[tuple[str, int, int]], cgroup_fd: int | None = None) -> None:
    # Runs in the forked child before exec: only setrlimit calls, nothing that takes locks.
    if cgroup_fd is not None:
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


def _mask_dirs() -> list[str]:
    """Host directories the command must not read: home directories hold keys and caches."""
    homes = {os.path.expanduser("~"), "/root", os.environ.get("HOME", "")}
    return sorted(h for h in homes if h and h != "/" and os.path.isdir(h))


def _keep_dirs() -> list[str]:
    """What commands need even inside a masked directory (home, /tmp): the Python
    installations they run and the package directories on our sys.path (a venv or user
    site-packages under ~), bound back read-only."""
    dirs = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs |= {os.path.realpath(p) for p in sys.path if p and os.path.isdir(p)}
    hidden = [*_mask_dirs(), "/tmp", "/var/tmp", "/dev/shm"]
    inside = sorted(d for d in dirs if any(Path(d).is_relative_to(m) for m in hidden))
    # a directory inside another kept one comes with it
    return [d for d in inside if not any(d != o and Path(d).is_relative_to(o) for o in inside)]


def _confine_argv(workspace: Path, command: str) -> list[str]:
    return [sys.executable, "-I", "-S", _CONFINE, os.path.realpath(workspace), _TMPFS_SIZE,
            _shell(), command, *(f"mask:{d}" for d in _mask_dirs()),
            *(f"keep:{d}" for d in _keep_dirs())]


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
    for flags in (("--mount", *pid_ns), ("--mount", "--map-root-user", *pid_ns), ("--mount",),
                  ("--mount", "--map-root-user")):
        label = "unshare " + " ".join(flags)
        with tempfile.TemporaryDirectory(prefix="edgeagent-probe-") as tmp:
            ws = Path(tmp, "ws")
            ws.mkdir()
            outside = Path(tmp, "outside")
            check = (f"echo in > inside && echo out > {outside} && "
                     "! (echo x > /.edgeagent-probe) 2>/dev/null && "
                     "! umount /tmp 2>/dev/null && echo confined")
            try:
                done = subprocess.run(
                    [unshare, *flags, *_confine_argv(ws, check)], cwd=ws,
                    stdin=subprocess.DEVNULL, capture_output=True, timeout=_PROBE_TIMEOUT_S,
                    env={"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"},
                )
            except (OSError, subprocess.SubprocessError) as exc:
                reasons.append(f"{label}: {exc}")
                continue
            out = done.stdout.decode("utf-8", "replace")
            if done.returncode != 0 or "confined" not in out:
                err = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
                reasons.append(f"{label}: {err[-1] if err else f'exit code {done.returncode}'}")
                continue
            if outside.exists() or not (ws / "inside").exists():
                reasons.append(f"{label}: writes were not confined to the workspace")
                continue
        what = "read-only except the workspace; private /tmp and home; no CAP_SYS_ADMIN"
        if "--pid" in flags:
            what += "; own pid namespace"
        return flags, f"{label}: {what}"
    return (), "none: " + "; ".join(reasons)


@functools.lru_cache(maxsize=1)
def _pids_cgroup_probe() -> tuple[str | None, str]:
    """(parent directory for per-command pids cgroups, description)."""
    reasons = []
    for root in _CGROUP_ROOTS:
        # a real cgroup directory has cgroup.procs (a tmpfs holding v1 hierarchies does not)
        if not os.path.exists(os.path.join(root, "cgroup.procs")):
            continue
        probe = os.path.join(root, f"edgeagent-probe-{os.getpid()}")
        try:
            os.mkdir(probe)
            try:
                # O_WRONLY without O_CREAT: only the controller's own file will do
                fd = os.open(os.path.join(probe, "pids.max"), os.O_WRONLY)
                try:
                    os.write(fd, b"16")
                finally:
                    os.close(fd)
            finally:
                os.rmdir(probe)
        except OSError as exc:
            reasons.append(f"{root}: {exc.strerror or exc}")
            continue
        _remove_stale_cgroups(root)
        return root, f"pids cgroup under {root}"
    return None, "none: " + ("; ".join(reasons) or "no pids cgroup controller found")


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


class _PidsCgroup:
    """One command's pids cgroup: caps the process count and lists every process to kill."""

    def __init__(self, root: str, max_processes: int) -> None:
        self.path = os.path.join(root, f"edgeagent-{os.getpid()}-{next(_cgroup_seq)}")
        os.mkdir(self.path)
        with open(os.path.join(self.path, "pids.max"), "w") as f:
            f.write(str(max_processes))
        self.procs_fd = os.open(os.path.join(self.path, "cgroup.procs"), os.O_WRONLY)

    def pids(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(line) for line in f if line.strip()]
        except OSError:
            return []

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
        os.close(self.procs_fd)
        deadline = time.monotonic() + 1.0
        while True:  # killed processes leave the cgroup once reaped
            try:
                os.rmdir(self.path)
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left behind empty-ish; harmless, and the name is never reused
                time.sleep(0.01)


def _open_cgroup(limits: ProcessLimits) -> _PidsCgroup | None:
    root = _pids_cgroup_probe()[0]
    if root is None:
        return None
    try:
        return _PidsCgroup(root, limits.max_processes)
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
    }
    if "RLIMIT_NPROC" in names and os.geteuid() == 0:
        report["rlimits_note"] = "RLIMIT_NPROC is set but not enforced: running as root"
    return report


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


def _pump(fd: int, pid: int, capture: _Capture, deadline: float) -> bool:
    """Read output until the shell exits; True if the deadline came first.

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
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return True
                events = sel.select(remaining if pidfd is not None else min(remaining, poll_s))
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


def _kill_session(pid: int) -> None:
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


def _command_argv(command: str, cwd: Path, limits: ProcessLimits) -> list[str]:
    net_flags = () if limits.network else _network_probe()[0][1:]
    fs_flags = _filesystem_probe()[0]
    flags = tuple(dict.fromkeys((*fs_flags, *net_flags)))
    unshare = _unshare()
    if not flags or unshare is None:
        return [_shell(), "-c", command]
    if fs_flags:
        return [unshare, *flags, *_confine_argv(cwd, command)]
    return [unshare, *flags, _shell(), "-c", command]


def run_command(command: str, cwd: Path, limits: ProcessLimits) -> CommandResult:
    """Run `bash -c command` in cwd; the whole session is killed when it ends or times out.

    Background children left behind by a command that exited are killed too: nothing the
    agent starts outlives its command.
    """
    argv = _command_argv(command, cwd, limits)
    capture = _Capture(limits.output_cap_bytes)
    cgroup = _open_cgroup(limits)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=scrubbed_env(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=functools.partial(
                _apply_rlimits, _rlimit_table(limits), cgroup.procs_fd if cgroup else None
            ),
            close_fds=True,
        )
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        raise
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    timed_out = True
    try:
        timed_out = _pump(fd, proc.pid, capture, start + limits.timeout_s)
    finally:
        _kill_session(proc.pid)
        if cgroup is not None:
            cgroup.kill_all()
        try:
            _drain(fd, capture)
        finally:
            proc.stdout.close()
            proc.wait()
            if cgroup is not None:
                cgroup.remove()
    wall_ms = (time.monotonic() - start) * 1000.0
    code = proc.returncode
    exit_code = None if timed_out else (128 - code if code < 0 else code)
    return CommandResult(
        exit_code=exit_code,
        output=capture.text(),
        timed_out=timed_out,
        truncated=capture.truncated,
        output_bytes=capture.total,
        wall_ms=wall_ms,
    )
