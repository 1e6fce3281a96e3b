"""Benchmark integrity (issue 19): a hostile agent can neither read the answers nor forge a
grade, kernel objects stay its own, every resource is bounded, and cleanup cannot fail.

Every attempt goes through the real Toolbox (and, for forgeries, the real grader) in a fresh
workspace. Each class is counted for docs/reliability.md (`integrity` counters: CLASS_tried,
CLASS_blocked, CLASS_not_contained). An attempt whose isolation this machine lacks is skipped
with the reason and counted as not contained; none is passed without being tried.
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import sysconfig
import threading
import time
import uuid
from pathlib import Path

import pytest
from integrity_cases import FORGERIES, ORACLE_FIX, SECRETS, answer_reads, make_suite

from edgeagent.sandbox.process import ProcessLimits, isolation_report
from edgeagent.sandbox.tools import Toolbox, ToolResult
from edgeagent.sandbox.workspace import Workspace, remove_tree
from edgeagent.suite import grade, load_suite

LIMITS = ProcessLimits(timeout_s=20.0, output_cap_bytes=16384, file_size_bytes=16 << 20,
                       memory_bytes=512 << 20, disk_bytes=32 << 20, disk_entries=2000)
TOKEN = f"edgeagent-canary-{uuid.uuid4().hex[:12]}"
_libc = ctypes.CDLL(None, use_errno=True)


def _confined() -> str | None:
    fs = isolation_report()["filesystem"]
    return None if not fs.startswith("none") else f"no filesystem confinement: {fs}"


def _hard_disk_bound() -> bool:
    return isolation_report()["disk"].startswith("hard")


def _need(reliability, cls: str, why: str | None) -> None:
    reliability("integrity", **{f"{cls}_tried": 1})
    if why is not None:
        reliability("integrity", **{f"{cls}_not_contained": 1})
        pytest.skip(f"not contained on this machine: {why}")


def _blocked(reliability, cls: str) -> None:
    reliability("integrity", **{f"{cls}_blocked": 1})


def _calls(box: Toolbox, calls: list[tuple[str, dict]]) -> list[ToolResult]:
    results = [box.call(name, args) for name, args in calls]
    assert all(isinstance(r, ToolResult) and r.output.strip() for r in results)
    return results


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory):
    return load_suite(str(make_suite(tmp_path_factory.mktemp("integrity"))))


# ---------------------------------------------------------------- forged grades


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["ids-add", "cmd-add"])
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_forged_grade_stays_unresolved(suite, forgery: str, task_id: str, reliability) -> None:
    _need(reliability, "forgery", None)
    (task,) = [t for t in suite.tasks if t.id == task_id]
    with Workspace.create(task.repo_dir) as ws:
        box = Toolbox(ws, task.test_command, LIMITS)
        results = _calls(box, FORGERIES[forgery])
        assert not any(r.error for r in results), [r.output for r in results]
        graded = grade(task, ws, LIMITS)
    assert not graded.resolved, graded.output
    _blocked(reliability, "forgery")


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["ids-add", "cmd-add"])
def test_the_real_fix_still_resolves(suite, task_id: str) -> None:
    """The control: the same grader passes an honest fix, so 'unresolved' above is earned."""
    (task,) = [t for t in suite.tasks if t.id == task_id]
    with Workspace.create(task.repo_dir) as ws:
        _calls(Toolbox(ws, task.test_command, LIMITS), ORACLE_FIX)
        graded = grade(task, ws, LIMITS)
    assert graded.resolved, graded.output
    assert len(graded.tests) == 3 and all(o.status == "pass" for o in graded.tests)


# ---------------------------------------------------------------- answers


@pytest.mark.slow
@pytest.mark.parametrize("read", ["find / -name hidden_tests", "cat this suite's oracle",
                                  "cat the checkout's bundled oracle", "list edgeagent's package",
                                  "read the run directory", "read the host's home"])
def test_answers_are_not_readable(suite, tmp_path: Path, read: str, reliability) -> None:
    _need(reliability, "answers", _confined())
    out = tmp_path / "runs"
    (out / "r1").mkdir(parents=True)
    (out / "r1" / "run.db").write_text(f"{TOKEN} test_add_more_cases\n")
    Path.home().joinpath(f".canary-{TOKEN}").write_text(TOKEN)
    try:
        (task,) = [t for t in suite.tasks if t.id == "ids-add"]
        limits = ProcessLimits(timeout_s=30.0, hide=(str(suite.path), str(out)))
        with Workspace.create(task.repo_dir) as ws:
            (result,) = _calls(Toolbox(ws, task.test_command, limits),
                               [answer_reads(suite.path, out)[read]])
    finally:
        Path.home().joinpath(f".canary-{TOKEN}").unlink()
    for secret in (*SECRETS, TOKEN, "oracle.yaml\n", "hidden_tests\n"):
        assert secret not in result.output, result.output
    _blocked(reliability, "answers")


@pytest.mark.slow
def test_hidden_path_inside_a_bound_directory_is_masked(tmp_path: Path, reliability) -> None:
    """A run directory or suite where the sandbox does see (here /usr/local/share) is covered;
    its sibling, not named, stays visible: the mask is what hides it."""
    _need(reliability, "answers", _confined())
    base = Path("/usr/local/share")
    if not os.access(base, os.W_OK):
        pytest.skip(f"{base} is not writable here: cannot place a run directory in a bound tree")
    tag = uuid.uuid4().hex[:8]
    hidden, shown = base / f"edgeagent-hide-{tag}", base / f"edgeagent-show-{tag}"
    try:
        for d in (hidden, shown):
            d.mkdir()
            (d / "run.db").write_text(TOKEN)
        repo = tmp_path / "repo"
        repo.mkdir()
        limits = ProcessLimits(timeout_s=10.0, hide=(str(hidden),))
        with Workspace.create(repo) as ws:
            (seen,) = _calls(Toolbox(ws, "true", limits), [("run", {"command":
                f"cat {hidden}/run.db; echo; ls {shown}"})])
    finally:
        for d in (hidden, shown):
            remove_tree(d)
    assert TOKEN not in seen.output and "run.db" in seen.output, seen.output
    _blocked(reliability, "answers")


# ---------------------------------------------------------------- kernel objects


def _shm_ids() -> set[str]:
    with open("/proc/sysvipc/shm") as f:
        return {line.split()[1] for line in f.readlines()[1:]}


@pytest.mark.slow
def test_host_shared_memory_is_not_visible_and_none_outlives(tmp_path: Path, reliability):
    _need(reliability, "kernel", None if "--ipc" in isolation_report()["filesystem"]
          else "no IPC namespace: " + isolation_report()["filesystem"])
    key = 0x5EC19000 + os.getpid() % 4096
    shmid = _libc.shmget(key, 4096, 0o1600)  # IPC_CREAT | 0600
    assert shmid >= 0
    try:
        before = _shm_ids()
        with Workspace.create(_repo(tmp_path)) as ws:
            (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
                f"ipcs -m; ipcmk -M 4096; python -c \"import ctypes; "
                f"print('attach', ctypes.CDLL(None).shmget({key}, 0, 0))\""})])
        assert f"{key:#010x}" not in r.output, r.output
        assert "attach -1" in r.output, r.output
        assert _shm_ids() == before, "a segment made in the step outlived it"
    finally:
        _libc.shmctl(shmid, 0, None)  # IPC_RMID
    _blocked(reliability, "kernel")


@pytest.mark.slow
def test_host_keyring_secret_is_not_readable(tmp_path: Path, reliability) -> None:
    _need(reliability, "kernel", _confined())
    add_key = {"x86_64": 248, "aarch64": 217}.get(os.uname().machine)
    if add_key is None:
        pytest.skip("add_key's number is not known here for the host side of this test")
    desc = f"edgeagent-{TOKEN}".encode()
    key = _libc.syscall(add_key, b"user", desc, TOKEN.encode(), len(TOKEN), -4)  # @u
    if key < 0:
        pytest.skip(f"the host cannot store a key: {os.strerror(ctypes.get_errno())}")
    keyctl = add_key + 2
    try:
        with Workspace.create(_repo(tmp_path)) as ws:
            (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
                "python -c \"import ctypes, os; c = ctypes.CDLL(None, use_errno=True); "
                f"b = ctypes.create_string_buffer(256); n = c.syscall({keyctl}, 11, {key}, b, "
                f"256); print('read', n, b.raw[:max(n, 0)], os.strerror(ctypes.get_errno())); "
                f"print('list', c.syscall({keyctl}, 11, -4, b, 256))\"; cat /proc/keys"})])
    finally:
        _libc.syscall(keyctl, 3, key)  # KEYCTL_REVOKE
    assert TOKEN not in r.output and "read -1" in r.output, r.output
    _blocked(reliability, "kernel")


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    "echo edgeagent-was-here > /dev/kmsg",
    "losetup -f --show /etc/hostname; ls /dev/loop* /dev/loop-control",
    "ls /dev; cat /proc/self/status | grep -E '^Cap(Eff|Prm|Bnd)'",
])
def test_devices_and_capabilities_are_gone(tmp_path: Path, command: str, reliability) -> None:
    _need(reliability, "kernel", _confined())
    loops = _attached_loops()
    with Workspace.create(_repo(tmp_path)) as ws:
        (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command": command})])
    assert _attached_loops() == loops
    if "kmsg" in command:
        assert r.exit_code != 0, r.output
    elif "losetup" in command:
        assert "/dev/loop" not in r.output.replace("cannot access", "").split("\n")[-2:][0] or \
            "No such file" in r.output, r.output
    else:
        devices = set(r.output.split("\n")[1:-4])
        assert devices <= {"fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr",
                           "stdin", "stdout", "tty", "urandom", "zero"}, r.output
        assert r.output.count("0000000000000000") == 3, r.output
    _blocked(reliability, "kernel")


def _attached_loops() -> set[str]:
    found = set()
    for d in Path("/sys/block").glob("loop*"):
        if (d / "loop" / "backing_file").exists():
            found.add(d.name)
    return found


@pytest.mark.slow
def test_host_fifo_and_unix_socket_are_out_of_reach(tmp_path: Path, reliability) -> None:
    _need(reliability, "kernel", _confined())
    reached = _reach_fifo_and_socket(tmp_path, tmp_path / "host.fifo", tmp_path / "host.sock")
    assert not reached, reached
    _blocked(reliability, "kernel")


@pytest.mark.slow
def test_fifo_and_socket_inside_a_bound_directory_are_out_of_reach(
    tmp_path: Path, reliability
) -> None:
    """A bound directory is read-only, which does not stop a FIFO in it being written or a
    socket in it being connected to: made after the sandbox has run commands (the look at
    the bound directories is kept), both must still be covered in the next workspace."""
    _need(reliability, "kernel", _confined())
    with Workspace.create(_repo(tmp_path)) as ws:  # the sandbox has looked once already
        _calls(Toolbox(ws, "true", LIMITS), [("run", {"command": "true"})])
    bound = Path(sysconfig.get_paths()["purelib"]).resolve()  # our site-packages: bound
    place = bound / f"edgeagent-special-{uuid.uuid4().hex[:8]}"
    if len(str(place / "host.sock")) > 100:
        pytest.skip(f"{place} is too long a path for a Unix socket")
    place.mkdir()
    try:
        reached = _reach_fifo_and_socket(tmp_path, place / "host.fifo", place / "host.sock")
    finally:
        remove_tree(place)
    assert not reached, reached
    _blocked(reliability, "kernel")


def _reach_fifo_and_socket(tmp_path: Path, fifo: Path, sock_path: Path) -> list[str]:
    """What a command in a fresh workspace got through to: a line written into fifo, a
    connection to a socket listening at sock_path."""
    os.mkfifo(fifo)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    server.listen(1)
    server.settimeout(0.2)
    got: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                got.append(server.accept()[0].recv(64))
            except OSError:
                pass

    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with Workspace.create(_repo(tmp_path)) as ws:
            (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
                f"echo pwned > {fifo}; python -c \"import socket; s = socket.socket(socket.AF_UNIX)"
                f"; s.connect('{sock_path}'); s.send(b'pwned'); print('CONNECTED')\""})])
        time.sleep(0.3)
        try:
            data = os.read(reader, 64)
        except BlockingIOError:
            data = b""
    finally:
        stop.set()
        thread.join(2)
        server.close()
        os.close(reader)
    return [what for what, yes in (("the FIFO", data != b""), ("the socket", any(got)),
                                   ("connected", "CONNECTED" in r.output)) if yes]


# ---------------------------------------------------------------- resources


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    (repo / "app.py").write_text("print('hi')\n")
    return repo


def _usage(root: Path) -> int:
    return sum(f.stat().st_blocks * 512 for f in root.rglob("*") if f.is_file())


@pytest.mark.slow
def test_many_files_in_one_command_hit_the_disk_limit(tmp_path: Path, reliability) -> None:
    _need(reliability, "resources", None)
    with Workspace.create(_repo(tmp_path)) as ws:
        before = _usage(ws.root)
        (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
            "for i in $(seq 16); do head -c 12M /dev/zero > f$i; sync f$i; done; echo done"})])
        if _hard_disk_bound():
            # the kernel refused every write past 32 MB: nothing over, nothing killed
            assert "limit: the command tried to add more than 32 MB" in r.output, r.output[:500]
            assert _usage(ws.root) - before <= 32 << 20
        else:
            assert "killed: the command wrote more than 32 MB" in r.output, r.output[:500]
            assert "done" not in r.output.split("\n", 1)[1]
            # the overshoot is what one poll interval lets through, not the 192 MB asked for
            assert _usage(ws.root) < 160 << 20
    _blocked(reliability, "resources")


@pytest.mark.slow
def test_file_flood_hits_the_entry_limit(tmp_path: Path, reliability) -> None:
    _need(reliability, "resources", None)
    with Workspace.create(_repo(tmp_path)) as ws:
        before = len(os.listdir(ws.root))
        (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
            "python -c \"import time\nfor i in range(200000):\n open(f'f{i}', 'w').close()\n"
            " if i % 500 == 0: time.sleep(0.01)\nprint('done')\""})])
        if _hard_disk_bound():
            assert "limit: the command tried to create more than 2000 files" in r.output, \
                r.output[:500]
            assert len(os.listdir(ws.root)) - before <= 2000
        else:
            assert "killed: the command created more than 2000 files" in r.output, r.output[:500]
            assert len(os.listdir(ws.root)) < 60000
    _blocked(reliability, "resources")


@pytest.mark.slow
def test_processes_together_hit_the_memory_limit(tmp_path: Path, reliability) -> None:
    memory = isolation_report()["memory"]
    _need(reliability, "resources", None if not memory.startswith("none") else memory)
    hog = ("python -c \"import time; b = bytearray(300 << 20); "
           "[b.__setitem__(i, 1) for i in range(0, len(b), 4096)]; time.sleep(3)\" & ")
    with Workspace.create(_repo(tmp_path)) as ws:
        (r,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
            hog * 3 + "wait; echo waited"})])
    assert "used more than 512 MB of memory together" in r.output, r.output[:500]
    _blocked(reliability, "resources")


@pytest.mark.slow
def test_write_file_onto_a_fifo_is_refused_at_once(tmp_path: Path, reliability) -> None:
    _need(reliability, "resources", None)
    with Workspace.create(_repo(tmp_path)) as ws:
        box = Toolbox(ws, "true", LIMITS)
        start = time.monotonic()
        mk, write = _calls(box, [("run", {"command": "mkfifo pipe"}),
                                 ("write_file", {"path": "pipe", "content": "x"})])
        assert time.monotonic() - start < 5
    assert write.error and "not a regular file" in write.output
    _blocked(reliability, "resources")


@pytest.mark.slow
def test_catastrophic_grep_regex_is_stopped(tmp_path: Path, reliability) -> None:
    _need(reliability, "resources", None)
    with Workspace.create(_repo(tmp_path)) as ws:
        (ws.root / "a.txt").write_text("a" * 40 + "b\n")
        box = Toolbox(ws, "true", ProcessLimits(timeout_s=2.0))
        start = time.monotonic()
        (r,) = _calls(box, [("grep", {"pattern": "(a+)+$"})])
        elapsed = time.monotonic() - start
    assert r.error and "grep stopped after 2 s" in r.output, r.output
    assert elapsed < 6
    _blocked(reliability, "resources")


def test_edit_of_a_huge_file_answers_in_bounded_time(tmp_path: Path, reliability) -> None:
    """edit's closest-lines hint runs in the agent's process: on a 16 MB file it stops at its
    budget instead of comparing every window (minutes)."""
    _need(reliability, "resources", None)
    with Workspace.create(_repo(tmp_path)) as ws:
        (ws.root / "huge.py").write_text(
            "".join(f"line number {i} with some text x = {i * 7}\n" for i in range(400000)))
        old = "".join(f"zz unmatched {i} qq\n" for i in range(60))
        start = time.monotonic()
        (r,) = _calls(Toolbox(ws, "true", LIMITS), [("edit", {"path": "huge.py", "old": old,
                                                              "new": "x"})])
        elapsed = time.monotonic() - start
    assert r.error and "old text not found" in r.output
    assert elapsed < 10, elapsed
    _blocked(reliability, "resources")


# ---------------------------------------------------------------- cleanup


@pytest.mark.slow
def test_deep_unreadable_tree_is_cleaned_up(tmp_path: Path, reliability) -> None:
    _need(reliability, "cleanup", None)
    ws = Workspace.create(_repo(tmp_path), parent=tmp_path / "wsparent")
    r = ws.root
    (res,) = _calls(Toolbox(ws, "true", LIMITS), [("run", {"command":
        "python -c \"import os\nfor i in range(1500):\n os.mkdir('dddddddd'); "
        "os.chdir('dddddddd')\nopen('f', 'w').write('x'); os.chmod('f', 0)\"; "
        "chmod 000 dddddddd/dddddddd; echo made"})])
    assert "made" in res.output
    assert ws.cleanup() == []
    assert not r.exists() and os.listdir(tmp_path / "wsparent") == []
    _blocked(reliability, "cleanup")


@pytest.mark.slow
def test_cleanup_detaches_a_mount_instead_of_deleting_through_it(tmp_path: Path, reliability):
    _need(reliability, "cleanup", None if os.geteuid() == 0 else "needs root to mount")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text(TOKEN)
    ws = Workspace.create(_repo(tmp_path))
    (ws.root / "m").mkdir()
    done = subprocess.run(["mount", "--bind", str(outside), str(ws.root / "m")],
                          capture_output=True, text=True)
    if done.returncode != 0:
        ws.cleanup()
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")
    ws.cleanup()
    assert (outside / "keep.txt").read_text() == TOKEN
    assert not ws.root.exists()
    _blocked(reliability, "cleanup")


@pytest.mark.slow
def test_a_test_may_set_unittest_data_but_not_its_behaviour(tmp_path: Path) -> None:
    """The in-memory check looks at unittest's behaviour only: a test module that sets
    TestCase.maxDiff (data) still passes; one whose import replaces an assertion errors."""
    from edgeagent.suite import run_test_ids

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "test_data.py").write_text(
        "import unittest\nunittest.TestCase.maxDiff = None\n\n\n"
        "class T(unittest.TestCase):\n    def test_ok(self):\n        self.assertEqual(1, 1)\n")
    (repo / "test_patch.py").write_text(
        "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n\n\n"
        "class T(unittest.TestCase):\n    def test_bad(self):\n        self.assertEqual(1, 2)\n")
    with Workspace.create(repo) as ws:
        outcomes, _ = run_test_ids(["test_data.T.test_ok", "test_patch.T.test_bad"], ws,
                                   LIMITS, 10.0)
    assert [o.status for o in outcomes] == ["pass", "error"], outcomes
    assert "changed unittest" in outcomes[1].detail
