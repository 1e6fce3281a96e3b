"""`edgeagent serve` started for a test on a free port: the process, its URL and its run
directory, read from its readiness line (shared by tests/serve and tests/security)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

EDGEAGENT = Path(sys.executable).with_name("edgeagent")
_READY = re.compile(r"serving (http://127\.0\.0\.1:\d+/v1) .*recording to (\S+);")


def start_serve(model: Path, out: Path, *extra: str, own_group: bool = False
                ) -> tuple[subprocess.Popen[str], str, Path]:
    """`own_group`: in a process group of its own, so a test can SIGKILL all of it."""
    proc = subprocess.Popen(
        [str(EDGEAGENT), "serve", "--model", str(model), "--port", "0", "--threads", "1",
         "--n-ctx", "2048", "--out", str(out), *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=own_group)
    assert proc.stderr is not None
    deadline = time.monotonic() + 120
    lines = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        match = _READY.search(line)
        if match:
            return proc, match.group(1), Path(match.group(2))
    if own_group:
        os.killpg(proc.pid, signal.SIGKILL)
    else:
        proc.kill()
    proc.wait()
    raise AssertionError("serve did not start: " + "".join(lines))
