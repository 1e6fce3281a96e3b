"""Reading helpers shared by the source families: sysfs values and command output.

A failed read is None (or, from `probe_int`, the reason), never an exception: the sampler
records a gap and carries on.
"""

from __future__ import annotations

from pathlib import Path


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
