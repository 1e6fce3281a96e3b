"""What one command may add to its workspace, and how that is held: a hard bound or a poll.

Hard, where the probe in process.py finds an overlay possible in the command's namespaces:
confine.py shows the workspace as an overlay whose upper layer is a tmpfs of `Layer.size`
bytes and `Layer.entries` inodes, so the kernel refuses the write past the bound (ENOSPC);
the command is not killed, it meets a full disk as on a real one. Its pid 1 merges the layer
into the real workspace once every process of the command is gone (overlay_merge.py) and
reports on a pipe; `Layer.outcome` turns that report into the line the agent sees. The size
is the smaller of what one command may add (`disk_bytes`) and what is left of the whole
workspace's bound (`workspace_bytes`, what was there before included): the workspace can
never pass that bound through commands.

Polled, elsewhere (no pid namespace, no overlayfs in a user namespace: kernels before 5.11):
`DiskWatch` measures the workspace every POLL_S while the command runs and the command is
killed once past `disk_bytes` or `disk_entries`; a fast writer overshoots by what one
interval lets through.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.1  # how often a polled command's additions to the workspace are measured
MIN_LAYER_BYTES = 4096  # a tmpfs needs a page; a workspace at its bound gets just that


def mb(n: int) -> str:
    return f"{n / (1 << 20):g} MB"


def usage(root: Path, max_bytes: int | None, max_entries: int | None) -> tuple[int, int]:
    """(bytes on disk, entries) under root, without recursion or following links; stops
    counting once past either maximum."""
    used = entries = 0
    stack = [str(root)]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for entry in it:
                entries += 1
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used += getattr(st, "st_blocks", 0) * 512 or st.st_size
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
        if (max_bytes is not None and used > max_bytes) or (
                max_entries is not None and entries > max_entries):
            break
    return used, entries


@dataclass(frozen=True)
class Layer:
    """The hard bound for one command: the overlay's upper layer, sized before it starts."""

    size: int  # bytes the command may add
    entries: int  # files and directories it may add
    held: int  # bytes the workspace held before it
    total: int  # the whole workspace's bound

    @classmethod
    def plan(cls, root: Path, disk_bytes: int, disk_entries: int,
             workspace_bytes: int) -> Layer:
        held, _ = usage(root, workspace_bytes, None)
        size = max(min(disk_bytes, workspace_bytes - held), MIN_LAYER_BYTES)
        return cls(size, disk_entries, held, workspace_bytes)

    def argument(self, status_fd: int) -> str:
        """confine.py's entry for this layer, its report going to status_fd."""
        return f"quota:{self.size}:{self.entries}:{status_fd}"

    def outcome(self, status: str | None) -> str | None:
        """The line for the agent from pid 1's report (None: nothing to say); a report that
        never came means pid 1 was killed before the merge finished."""
        if status is None:
            return ("the sandbox was killed before the command's changes were all copied into "
                    "the workspace: some may be missing; check with ls and git status")
        lines = status.splitlines()
        said = []
        if "full bytes" in lines:
            said.append(self._full_bytes())
        if "full entries" in lines:
            said.append(f"the command tried to create more than {self.entries} files and "
                        "directories in the workspace (the limit per command); creating more "
                        "failed (No space left on device); remove them (rm -r) before going on")
        problems = [line[len("problem "):] for line in lines if line.startswith("problem ")]
        count = next((int(line.split()[1]) for line in lines if line.startswith("problems ")), 0)
        if count:
            said.append(f"{count} of the command's changes could not be kept in the workspace "
                        f"({'; '.join(problems[:3])})")
        return "; ".join(said) or None

    def _full_bytes(self) -> str:
        if self.held + self.size >= self.total:
            return (f"the workspace reached its bound of {mb(self.total)} (it held "
                    f"{mb(self.held)} before the command); writes past it failed (No space "
                    "left on device); remove files (rm) before going on")
        return (f"the command tried to add more than {mb(self.size)} to the workspace (the "
                "limit per command); writes past it failed (No space left on device); remove "
                "what it made (rm) before going on")


@dataclass
class DiskWatch:
    """What one command added to the workspace, measured every POLL_S while it runs."""

    root: Path
    disk_bytes: int
    disk_entries: int
    base_bytes: int = 0
    base_entries: int = 0
    next_check: float = 0.0
    over: str | None = None

    def start(self) -> None:
        self.base_bytes, self.base_entries = usage(self.root, None, None)
        self.next_check = time.monotonic() + POLL_S

    def check(self, now: float, final: bool = False) -> bool:
        """True once the command is over its limit (self.over says how)."""
        if now < self.next_check and not final:
            return False
        self.next_check = now + POLL_S
        max_bytes = self.base_bytes + self.disk_bytes
        max_entries = self.base_entries + self.disk_entries
        used, entries = usage(self.root, max_bytes, max_entries)
        if used > max_bytes:
            self.over = (f"the command wrote more than {mb(self.disk_bytes)} into the "
                         "workspace (the limit per command){killed}; remove the files it made "
                         "(rm) before going on")
        elif entries > max_entries:
            self.over = (f"the command created more than {self.disk_entries} files and "
                         "directories in the workspace (the limit per command){killed}; remove "
                         "them (rm -r) before going on")
        return self.over is not None
