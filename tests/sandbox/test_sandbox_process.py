"""run_command: exit codes, timeouts that kill the whole group, capped output, env, network."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil
import pytest

from edgeagent.sandbox.process import (
    CommandResult,
    ProcessLimits,
    isolation_report,
    run_command,
)

FAST = ProcessLimits(timeout_s=10.0)


def _none_running(marker: str) -> bool:
    """No host process has marker in its command line (pids written by a command are
    namespace pids where the sandbox has its own pid namespace, so they are not checked)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        live = []
        for p in psutil.process_iter(["cmdline", "status"]):
            if p.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(
                p.info["cmdline"] or []
            ):
                live.append(p)
        if not live:
            return True
        time.sleep(0.02)
    return False


@pytest.mark.slow
def test_exit_code_and_merged_output(tmp_path: Path) -> None:
    r = run_command("echo out; echo err >&2; exit 3", tmp_path, FAST)
    assert isinstance(r, CommandResult)
    assert r.exit_code == 3 and not r.timed_out and not r.truncated
    assert r.output == "out\nerr\n"
    assert r.output_bytes == len("out\nerr\n")
    assert r.wall_ms > 0


@pytest.mark.slow
def test_exit_codes_propagate(tmp_path: Path) -> None:
    assert run_command("true", tmp_path, FAST).exit_code == 0
    assert run_command("false", tmp_path, FAST).exit_code == 1
    # Killed by a signal reads as the shell would report it: 128 + N.
    assert run_command("kill -9 $$", tmp_path, FAST).exit_code == 137


@pytest.mark.slow
def test_runs_in_cwd_with_stdin_devnull(tmp_path: Path) -> None:
    r = run_command("pwd; cat; echo done", tmp_path, FAST)
    assert r.output == f"{os.path.realpath(tmp_path)}\ndone\n"


@pytest.mark.slow
def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    cmd = "echo $$ > sh.pid; sleep 30.011 & echo $! > a.pid; sleep 30.012 & echo $! > b.pid; wait"
    start = time.monotonic()
    r = run_command(cmd, tmp_path, ProcessLimits(timeout_s=1.0))
    assert time.monotonic() - start < 5
    assert r.timed_out and r.exit_code is None
    assert _none_running("30.011") and _none_running("30.012"), "a process survived the timeout"


@pytest.mark.slow
def test_timeout_with_foreground_child_holding_the_pipe(tmp_path: Path) -> None:
    r = run_command(
        "sleep 30.021 & echo $! > a.pid; sleep 30", tmp_path, ProcessLimits(timeout_s=1.0)
    )
    assert r.timed_out and r.exit_code is None
    assert _none_running("30.021")


@pytest.mark.slow
def test_background_children_do_not_outlive_the_command(tmp_path: Path) -> None:
    start = time.monotonic()
    r = run_command("sleep 30.031 & echo $! > a.pid; echo started", tmp_path, FAST)
    assert time.monotonic() - start < 3
    assert r.exit_code == 0 and not r.timed_out and r.output == "started\n"
    assert _none_running("30.031")


@pytest.mark.slow
def test_shell_that_closes_its_output_is_still_waited_for(tmp_path: Path) -> None:
    r = run_command("echo early; exec >&- 2>&-; sleep 0.3; exit 4", tmp_path, FAST)
    assert r.exit_code == 4 and r.output == "early\n" and not r.timed_out


@pytest.mark.slow
def test_ten_megabytes_of_output_are_capped(tmp_path: Path) -> None:
    limits = ProcessLimits(timeout_s=20.0)
    start = time.monotonic()
    r = run_command("python -c \"print('x'*10_000_000)\"", tmp_path, limits)
    assert time.monotonic() - start < 10
    assert r.exit_code == 0 and r.truncated
    assert r.output_bytes >= 10_000_000
    assert "[... output truncated: 10000001 bytes total, showing first" in r.output
    marker = next(line for line in r.output.splitlines() if line.startswith("[... output"))
    assert len(r.output) <= limits.output_cap_bytes + len(marker) + 2


@pytest.mark.slow
def test_capped_output_keeps_head_and_tail(tmp_path: Path) -> None:
    cmd = "python -c \"import sys; sys.stdout.write('START' + 'q'*100_000 + 'END')\""
    r = run_command(cmd, tmp_path, ProcessLimits(timeout_s=10.0, output_cap_bytes=1000))
    assert r.truncated and r.output_bytes == 100_008
    assert r.output.startswith("START") and r.output.endswith("END")
    assert r.output.count("q") == 1000 - len("START") - len("END")


@pytest.mark.slow
def test_output_at_cap_is_not_truncated(tmp_path: Path) -> None:
    r = run_command("printf '%0100d' 0", tmp_path, ProcessLimits(output_cap_bytes=100))
    assert not r.truncated and r.output == "0" * 100


@pytest.mark.slow
def test_undecodable_bytes_are_replaced(tmp_path: Path) -> None:
    r = run_command(r"printf 'a\377b'", tmp_path, FAST)
    assert r.output == "a\ufffdb"


@pytest.mark.slow
def test_scrubbed_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("EDGEAGENT_SECRET_TOKEN", "hunter2")
    r = run_command("env", tmp_path, FAST)
    env = dict(line.split("=", 1) for line in r.output.splitlines() if "=" in line)
    assert env["HOME"] == str(tmp_path)
    assert env["LANG"] == env["LC_ALL"] == "C.UTF-8"
    assert env["TERM"] == "dumb"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    python_dir = os.path.dirname(os.path.abspath(sys.executable))
    assert env["PATH"].split(":")[0] == python_dir
    assert env["PATH"].endswith("/usr/local/bin:/usr/bin:/bin")
    assert not {k for k in env if "proxy" in k.lower()}
    assert "EDGEAGENT_SECRET_TOKEN" not in env and "hunter2" not in r.output


@pytest.mark.slow
def test_python_is_the_running_interpreter(tmp_path: Path) -> None:
    r = run_command("python -c 'import sys; print(sys.prefix)'", tmp_path, FAST)
    assert r.exit_code == 0 and r.output.strip() == sys.prefix
    if os.path.exists(os.path.join(os.path.dirname(sys.executable), "python")):
        r = run_command("command -v python", tmp_path, FAST)
        assert r.output.strip() == os.path.join(os.path.dirname(sys.executable), "python")


@pytest.mark.slow
def test_file_size_limit(tmp_path: Path) -> None:
    limits = ProcessLimits(file_size_bytes=100_000)
    r = run_command("head -c 1000000 /dev/zero > big.bin", tmp_path, limits)
    assert r.exit_code != 0
    assert (tmp_path / "big.bin").stat().st_size <= 100_000


@pytest.mark.slow
def test_address_space_limit(tmp_path: Path) -> None:
    limits = ProcessLimits(address_space_bytes=1 << 30)
    r = run_command("python -c 'bytearray(2 << 30)'", tmp_path, limits)
    assert r.exit_code != 0 and "MemoryError" in r.output


def test_isolation_report_shape_and_cache() -> None:
    report = isolation_report()
    assert report["process_group"] is True
    assert report["env"] == "scrubbed"
    assert isinstance(report["network"], str)
    assert report["network"].startswith(("unshare --net", "none: "))
    assert {"RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_FSIZE"} <= set(report["rlimits"])
    if os.geteuid() == 0 and "RLIMIT_NPROC" in report["rlimits"]:
        assert "not enforced" in report["rlimits_note"]
    report["network"] = "tampered"
    assert isolation_report()["network"] != "tampered"


@pytest.mark.slow
def test_no_network_when_isolated(tmp_path: Path) -> None:
    network = isolation_report()["network"]
    if not network.startswith("unshare"):
        pytest.skip(f"network isolation unavailable here: {network}")
    probe = (
        "python -c \"\nimport socket\ns = socket.socket(); s.settimeout(3)\n"
        "try:\n    s.connect(('1.1.1.1', 80)); print('CONNECTED')\n"
        "except OSError as e:\n    print('BLOCKED', e)\n\""
    )
    start = time.monotonic()
    r = run_command(probe, tmp_path, FAST)
    assert "BLOCKED" in r.output and "CONNECTED" not in r.output
    assert time.monotonic() - start < 2.5  # refused at once, not a connect timeout
    r = run_command("cat /proc/net/dev", tmp_path, FAST)
    interfaces = {line.split(":")[0].strip() for line in r.output.splitlines() if ":" in line}
    assert interfaces <= {"lo"}


@pytest.mark.slow
def test_network_true_skips_the_namespace(tmp_path: Path) -> None:
    if not isolation_report()["network"].startswith("unshare"):
        pytest.skip("network isolation unavailable here")
    host = Path("/proc/net/dev").read_text()
    r = run_command("cat /proc/net/dev", tmp_path, ProcessLimits(network=True))
    names = {line.split(":")[0].strip() for line in r.output.splitlines() if ":" in line}
    assert names == {line.split(":")[0].strip() for line in host.splitlines() if ":" in line}


@pytest.mark.slow
def test_confinement_holds_on_kernels_without_mount_setattr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux < 5.12 (Jetson's L4T kernels) lacks mount_setattr: confine.py then remounts each
    mount read-only itself. The same wrapper with that call made to fail must confine alike."""
    fs = isolation_report()["filesystem"]
    if fs.startswith("none"):
        pytest.skip(f"no filesystem confinement on this machine: {fs}")
    import edgeagent.sandbox.confine as confine

    source = Path(confine.__file__).read_text()
    assert "SYS_MOUNT_SETATTR = 442" in source
    old_kernel = tmp_path / "confine_without_mount_setattr.py"
    old_kernel.write_text(source.replace("SYS_MOUNT_SETATTR = 442", "SYS_MOUNT_SETATTR = -1"))
    merger = Path(confine.__file__).with_name("overlay_merge.py")  # imported from beside it
    (tmp_path / merger.name).write_text(merger.read_text())
    monkeypatch.setattr("edgeagent.sandbox.process._CONFINE", str(old_kernel))
    ws = tmp_path / "ws"
    ws.mkdir()
    result = run_command("touch /usr/x /etc/x /x 2>&1; echo ok > f && cat f; ls /dev | wc -l",
                         ws, FAST)
    assert result.exit_code == 0, result.output
    assert result.output.count("Read-only file system") == 3, result.output
    assert "ok" in result.output and (ws / "f").exists()
    assert not os.path.exists("/usr/x") and not os.path.exists("/x")


@pytest.mark.slow
def test_disk_limit_holds_with_one_observation(tmp_path: Path) -> None:
    limits = ProcessLimits(timeout_s=20.0, disk_bytes=8 << 20)
    result = run_command("head -c 4M /dev/zero > a; head -c 6M /dev/zero > b; echo done; "
                         "sleep 5", tmp_path, limits)
    assert result.limit_hit is not None and "more than 8 MB" in result.limit_hit
    if isolation_report()["disk"].startswith("hard"):
        # the kernel refused the write past the bound: nothing killed, nothing over
        assert not result.limit_killed and "No space left on device" in result.output
        assert "done" in result.output and result.exit_code == 0
        assert sum(f.stat().st_size for f in tmp_path.iterdir()) <= 8 << 20
    else:
        assert not result.timed_out and result.exit_code == 137 and result.wall_ms < 5000
