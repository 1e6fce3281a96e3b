"""Run `edgeagent` while a real filesystem fails under it: started by the fault tests inside
`unshare --mount` (a private mount namespace, so nothing here touches the host's mounts).

    unshare --mount python fs_fault.py SPEC.json

SPEC: {"mount": dir, "size": "8m", "fault": "fill" | "fill_trajectories" | "read_only",
       "argv": [...], "env": {...}, "out": runs dir, "save": host dir, "resume": bool,
       "timeout_s": float}

A size-capped tmpfs is mounted at `mount`; `argv` runs until the run's first step is in its
trajectory (so the step is committed), then the fault hits:
- fill: the tmpfs (holding the run directory) is filled until ENOSPC;
- fill_trajectories: a second, full tmpfs is mounted over the run's trajectories/ (run.db
  stays writable: the trajectory write is the one that fails);
- read_only: the tmpfs (holding the workspaces, TMPDIR) is remounted read-only.
The command is waited for; the run directory is copied to save/after_fault; the fault is
undone (space freed, the over-mount removed); with `resume`, `edgeagent run --resume` runs
once before that (the disk still full) and once after, and the directory is copied to
save/after_resume. save/result.json says what happened.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CHUNK = b"\0" * (1 << 16)


def mount_tmpfs(where: Path, size: str) -> None:
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                   check=True)


def fill(where: Path) -> int:
    """Write zeros into where/filler until the filesystem refuses (ENOSPC); bytes written."""
    written = 0
    with open(where / "filler", "wb", buffering=0) as f:
        try:
            while True:
                written += f.write(CHUNK)
        except OSError:
            pass
        # the last partial page too: a single byte at a time until nothing fits
        try:
            while True:
                written += f.write(b"\0")
        except OSError:
            pass
    return written


def step_lines(run_dir: Path) -> list[list]:
    """(task, attempt, step) of every step line in the run's trajectories."""
    found = []
    for path in sorted((run_dir / "trajectories").glob("*.jsonl")):
        for line in path.read_text(errors="replace").splitlines():
            if '"type": "step"' in line:
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue  # being written
                found.append([rec["task_id"], rec["attempt"], rec["step"]])
    return found


def wait_first_step(out: Path, proc: subprocess.Popen, deadline: float) -> Path | None:
    while time.monotonic() < deadline and proc.poll() is None:
        for run_dir in out.glob("*/trajectories"):
            if step_lines(run_dir.parent):
                return run_dir.parent
        time.sleep(0.02)
    return None


def inject(spec: dict, run_dir: Path) -> dict:
    mount = Path(spec["mount"])
    if spec["fault"] == "fill":
        return {"filled_bytes": fill(mount)}
    if spec["fault"] == "fill_trajectories":
        full = mount / "full"
        mount_tmpfs(full, "64k")
        filled = fill(full)
        subprocess.run(["mount", "--bind", str(full), str(run_dir / "trajectories")], check=True)
        return {"filled_bytes": filled}
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    return {"read_only": True}


def undo(spec: dict, run_dir: Path) -> None:
    """Space comes back: the filler goes, the over-mount is removed."""
    mount = Path(spec["mount"])
    if spec["fault"] == "fill":
        (mount / "filler").unlink()
    elif spec["fault"] == "fill_trajectories":
        subprocess.run(["umount", str(run_dir / "trajectories")], check=True)


def run(argv: list[str], env: dict, save: Path, name: str, timeout_s: float,
        until_step: bool = False, spec: dict | None = None) -> dict:
    """Run argv; with until_step, inject the fault at its first committed step."""
    with open(save / f"{name}.stdout", "w") as so, open(save / f"{name}.stderr", "w") as se:
        proc = subprocess.Popen(argv, stdout=so, stderr=se, env={**os.environ, **env})
        deadline = time.monotonic() + timeout_s
        result: dict = {}
        try:
            if until_step and spec is not None:
                run_dir = wait_first_step(Path(spec["out"]), proc, deadline)
                if run_dir is not None:
                    result["run_dir"] = str(run_dir)
                    result["steps_at_fault"] = step_lines(run_dir)
                    result["fault"] = inject(spec, run_dir)
            result["code"] = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    result["stderr"] = (save / f"{name}.stderr").read_text(errors="replace")
    return result


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text())
    save = Path(spec["save"])
    mount_tmpfs(Path(spec["mount"]), spec["size"])
    Path(spec["out"]).mkdir(parents=True, exist_ok=True)
    first = run(spec["argv"], spec.get("env", {}), save, "first", spec["timeout_s"],
                until_step=True, spec=spec)
    report = {"first": first}
    if "run_dir" in first:
        run_dir = Path(first["run_dir"])
        shutil.copytree(run_dir, save / "after_fault")
        resume = [spec["argv"][0], "run", "--resume", str(run_dir), "--threads", "1",
                  "--headless"]
        if spec.get("resume"):  # too soon: the disk is still full
            report["resume_while_full"] = run(resume, spec.get("env", {}), save,
                                              "resume_while_full", spec["timeout_s"])
        undo(spec, run_dir)
        if spec.get("resume"):
            report["resume"] = run(resume, spec.get("env", {}), save, "resume",
                                   spec["timeout_s"])
            shutil.copytree(run_dir, save / "after_resume")
    (save / "result.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- the test's side (host) -------------------------------------------------------------


def can_mount(scratch: Path) -> bool:
    """Whether this machine lets us mount a tmpfs in a private mount namespace (root, or
    user namespaces); EDGEAGENT_FAULTS_NO_MOUNT=1 says no, to exercise the fallback."""
    unshare = shutil.which("unshare")
    if unshare is None or os.environ.get("EDGEAGENT_FAULTS_NO_MOUNT"):
        return False
    probe = scratch / "mount-probe"
    probe.mkdir(exist_ok=True)
    done = subprocess.run([unshare, "--mount", "sh", "-c",
                           f"mount -t tmpfs -o size=64k tmpfs {probe} && mount -o remount,ro "
                           f"{probe} && ! touch {probe}/x 2>/dev/null"],
                          capture_output=True, timeout=30)
    return done.returncode == 0


def count_injection(scratch: Path, kind: str, reliability, record_property) -> bool:
    """Whether a real tmpfs can be mounted for this fault (else it is injected at the OS
    call), recorded for the JUnit report and counted for the reliability table."""
    mounted = can_mount(scratch)
    record_property("injected_by", "tmpfs" if mounted else "os-call")
    reliability("faults", injected=1)
    reliability("fault_kinds", **{kind: 1})
    reliability("faults_by", **{"tmpfs" if mounted else "os_call": 1})
    return mounted


def run_faulted(spec: dict, scratch: Path, timeout_s: float) -> dict:
    """Run the driver in a private mount namespace; its result.json."""
    save = Path(spec["save"])
    save.mkdir(parents=True, exist_ok=True)
    spec_path = scratch / "fault-spec.json"
    spec_path.write_text(json.dumps(spec))
    done = subprocess.run([shutil.which("unshare") or "unshare", "--mount", sys.executable,
                           __file__, str(spec_path)], capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((save / "result.json").read_text())
