"""Reading helpers shared by the source families: sysfs values and command output.

A failed read is None (or, from `probe_int`, the reason), never an exception: the sampler
records a gap and carries on.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def read_int(path: Path) -> int | None:
    """The leading integer of a sysfs file, or None if it is gone, unreadable or garbled."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def read_str(path: Path) -> str | None:
    """A sysfs or device-tree string without its NUL terminator and whitespace; None if empty."""
    try:
        return path.read_text(errors="replace").strip("\x00\n\t ") or None
    except OSError:
        return None


def probe_int(path: Path) -> str | None:
    """Why path cannot be read as an integer now, or None if it can."""
    try:
        int(path.read_text().split()[0])
    except PermissionError:
        return "permission denied"
    except FileNotFoundError:
        return "file missing"
    except OSError as e:  # e.g. ENODATA from a disabled hwmon channel
        return f"read failed ({e.strerror or e})"
    except (ValueError, IndexError):
        return "unparsable value"
    return None


def first_line(text: str | bytes | None) -> str | None:
    """The first non-blank line of a command's output, stripped."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return None


class KeptFiles:
    """Sysfs value files held open between samples and re-read with pread at offset 0.

    The sampler reads every source 20 times a second; open + read + close through Python's
    io costs ~15 µs a file hot and several times that from a cold cache after the thread's
    sleep, which alone broke the meter's 0.5%-of-a-core budget. pread on a kept descriptor
    makes sysfs (kernfs) regenerate the value like a fresh read, at a fraction of the cost.

    A file that disappears still reads as a gap: a removed device's descriptor fails its read
    (ENODEV), and a deleted file (st_nlink 0, as fixture trees do it) is dropped and re-opened
    by path, which then fails, or reads the file created in its place.
    """

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}
        # The sampler thread and phase-edge samples on the main thread share descriptors.
        self._lock = threading.Lock()

    def read_int(self, path: Path | str) -> int | None:
        """The leading integer of the file, or None if it is gone, unreadable or garbled."""
        key = str(path)
        with self._lock:
            # The sampler's every-sample path, inlined: two syscalls and no Python frames.
            fd = self._fds.get(key)
            if fd is not None:
                try:
                    if os.fstat(fd).st_nlink:
                        return int(os.pread(fd, 64, 0).split()[0])
                except (OSError, ValueError, IndexError):
                    pass
        return self._read(path, _leading_int)  # first read, or a failure: by path

    def read_ints(self, path: Path | str) -> tuple[int, ...] | None:
        """The file's whitespace-separated integers, or None if it is gone or garbled."""
        return self._read(path, _all_ints)

    def close(self) -> None:
        """Close every kept descriptor (the next read re-opens by path)."""
        with self._lock:
            for key in list(self._fds):
                self._drop(key)

    def _read(self, path: Path | str, parse: Callable[[bytes], T]) -> T | None:
        key = str(path)
        with self._lock:
            fd = self._fds.get(key)
            if fd is not None:
                value = _pread_parsed(fd, parse, check_deleted=True)
                if value is not None:
                    return value
                # Failed: the value may be garbled, the device gone, or the file replaced;
                # drop the descriptor and try once by path.
                self._drop(key)
            try:
                # O_NONBLOCK: a FIFO or device node where a value file should be reads as a
                # gap instead of hanging the sampler; sysfs attributes ignore the flag.
                fd = os.open(key, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
            except OSError:
                return None
            value = _pread_parsed(fd, parse, check_deleted=False)
            if value is None:
                os.close(fd)
            else:
                self._fds[key] = fd
            return value

    def _drop(self, key: str) -> None:
        fd = self._fds.pop(key)
        with contextlib.suppress(OSError):
            os.close(fd)


def _pread_parsed(fd: int, parse: Callable[[bytes], T], *, check_deleted: bool) -> T | None:
    try:
        if check_deleted and os.fstat(fd).st_nlink == 0:
            return None
        return parse(os.pread(fd, 256, 0))
    except (OSError, ValueError, IndexError):
        return None


def _leading_int(data: bytes) -> int:
    return int(data.split()[0])


def _all_ints(data: bytes) -> tuple[int, ...]:
    return tuple(map(int, data.split()))


# One set per process: every source family reads its per-sample values through it.
KEPT = KeptFiles()
