"""The hard disk bound: a command's workspace is an overlay over the real one, its changes merged
back when it ends. Every kind of change must arrive exactly, the bound must hold per command and
for the whole workspace, and nothing the command planted may steer the merge outside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from edgeagent.sandbox.process import ProcessLimits, isolation_report, run_command

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not isolation_report()["disk"].startswith("hard"),
                                 reason="no hard disk bound on this machine (polled instead)")]

LIMITS = ProcessLimits(timeout_s=20.0, disk_bytes=8 << 20, disk_entries=200)


def _repo(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg" / "sub").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("a = 1\n")
    (ws / "pkg" / "sub" / "b.py").write_text("b = 2\n")
    (ws / "gone.txt").write_text("gone\n")
    (ws / "grow.txt").write_text("one\n")
    (ws / "was_dir").mkdir()
    (ws / "was_dir" / "x").write_text("x\n")
    (ws / "was_file").write_text("f\n")
    (ws / ".edgeagent-merge-0").write_text("mine\n")  # a name the merge's temporary files avoid
    return ws


def test_every_kind_of_change_is_merged_exactly(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    script = (
        "rm gone.txt && echo two >> grow.txt && rm -r pkg/sub && mkdir pkg/sub && "
        "echo c > pkg/sub/c.py && rm -r was_dir && echo now-a-file > was_dir && "
        "rm was_file && mkdir was_file && echo in > was_file/in && ln -s pkg/a.py link && "
        "mkfifo pipe && truncate -s 40M sparse && echo tail >> sparse && "
        "chmod 600 pkg/a.py && mkdir ro && echo r > ro/r && chmod 555 ro && "
        "touch -d '2001-02-03 04:05:06' grow.txt && echo done"
    )
    result = run_command(script, ws, LIMITS)
    assert result.exit_code == 0 and "done" in result.output, result.output
    assert result.limit_hit is None
    assert not (ws / "gone.txt").exists()
    assert (ws / "grow.txt").read_text() == "one\ntwo\n"
    assert sorted(p.name for p in (ws / "pkg" / "sub").iterdir()) == ["c.py"]
    assert (ws / "was_dir").read_text() == "now-a-file\n"
    assert (ws / "was_file" / "in").read_text() == "in\n"
    assert os.readlink(ws / "link") == "pkg/a.py"
    assert stat.S_ISFIFO((ws / "pipe").lstat().st_mode)
    sparse = (ws / "sparse").stat()
    assert sparse.st_size == (40 << 20) + 5 and sparse.st_blocks * 512 < 1 << 20
    assert stat.S_IMODE((ws / "pkg" / "a.py").stat().st_mode) == 0o600
    assert stat.S_IMODE((ws / "ro").stat().st_mode) == 0o555 and (ws / "ro" / "r").exists()
    assert int((ws / "grow.txt").stat().st_mtime) == 981173106  # 2001-02-03 04:05:06 UTC
    assert (ws / ".edgeagent-merge-0").read_text() == "mine\n"
    assert sorted(p.name for p in ws.iterdir() if p.name.startswith(".edgeagent-merge")) == [
        ".edgeagent-merge-0"]


def test_the_workspace_is_untouched_until_the_command_ends(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    result = run_command("echo changed > grow.txt; echo marker; sleep 30", ws,
                         ProcessLimits(timeout_s=2.0, disk_bytes=8 << 20))
    # the timeout ended it: pid 1 killed the rest, then merged what it had written
    assert result.timed_out and "marker" in result.output
    assert (ws / "grow.txt").read_text() == "changed\n"


def test_a_background_writer_is_stopped_before_the_merge(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    result = run_command("(for i in $(seq 1000); do echo $i >> log; sleep 0.01; done) & "
                         "sleep 0.3; echo left", ws, LIMITS)
    assert result.exit_code == 0 and "left" in result.output
    lines = (ws / "log").read_text().splitlines()
    assert 0 < len(lines) < 1000
    before = (ws / "log").stat().st_size
    run_command("true", ws, LIMITS)
    assert (ws / "log").stat().st_size == before  # nothing wrote after the command ended


def test_the_whole_workspace_has_a_bound_across_commands(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    limits = ProcessLimits(timeout_s=20.0, disk_bytes=8 << 20, workspace_bytes=16 << 20)
    results = [run_command(f"head -c 6M /dev/zero > f{i}; echo $?", ws, limits)
               for i in range(4)]
    assert all(r.limit_hit is None for r in results[:2])
    assert "reached its bound of 16 MB" in (results[2].limit_hit or ""), results[2]
    used = sum(p.stat().st_blocks * 512 for p in ws.rglob("*") if p.is_file())
    assert used <= 16 << 20
    assert "reached its bound" in (results[3].limit_hit or "")


def test_the_entry_bound_holds(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    result = run_command("for i in $(seq 1000); do : > f$i || break; done; echo stopped $i",
                         ws, LIMITS)
    assert "more than 200 files" in (result.limit_hit or ""), result
    assert not result.limit_killed
    made = [p for p in ws.iterdir() if p.name.startswith("f")]
    assert 150 < len(made) <= 205  # the layer's own few inodes aside


def test_a_planted_symlink_never_steers_the_merge_outside(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    first = run_command(f"ln -s {outside} escape && ln -s {outside}/file.txt target", ws, LIMITS)
    assert first.exit_code == 0, first.output
    # the same names, now a directory and a file: the merge replaces the links, never follows
    second = run_command("rm escape target && mkdir escape && echo pwn > escape/f && "
                         "echo pwn > target", ws, LIMITS)
    assert second.exit_code == 0, second.output
    assert list(outside.iterdir()) == []
    assert (ws / "escape" / "f").read_text() == "pwn\n" and not (ws / "target").is_symlink()


def test_too_deep_a_tree_is_reported_not_merged_blindly(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    result = run_command("p=deep; for i in $(seq 150); do p=$p/d; done; mkdir -p $p && "
                         "echo x > deep/top.txt", ws, LIMITS)
    assert "could not be kept" in (result.limit_hit or "") and "deeper than" in result.limit_hit
    assert (ws / "deep" / "top.txt").read_text() == "x\n"


def test_the_command_cannot_reach_the_real_workspace_or_the_layer(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    # pid 1 holds both open; it is not dumpable, so no descriptor of it can be followed
    script = ("for f in /proc/1/fd/* /proc/1/root; do ls $f/ >/dev/null && echo opened $f; "
              "done 2>&1; umount \"$PWD\" 2>/dev/null || echo cannot-umount")
    result = run_command(script, ws, LIMITS)
    out = result.output
    assert "opened" not in out and out.count("Permission denied") >= 4, out
    assert "cannot-umount" in out  # the layer's tmpfs stays covered by the overlay


def test_what_the_owner_cannot_read_is_merged_with_its_mode(tmp_path: Path) -> None:
    ws = _repo(tmp_path)
    first = run_command("echo s > secret && chmod 000 secret && mkdir shut && echo i > shut/i "
                        "&& chmod 000 shut", ws, LIMITS)
    assert first.exit_code == 0 and first.limit_hit is None, first
    # into a directory the merge itself cannot enter as it stands
    second = run_command("chmod 700 shut && echo j > shut/j && chmod 000 shut", ws, LIMITS)
    assert second.exit_code == 0 and second.limit_hit is None, second
    assert stat.S_IMODE((ws / "secret").stat().st_mode) == 0
    assert stat.S_IMODE((ws / "shut").stat().st_mode) == 0
    os.chmod(ws / "shut", 0o700)
    assert (ws / "secret").read_text() == "s\n"
    assert sorted(p.name for p in (ws / "shut").iterdir()) == ["i", "j"]
