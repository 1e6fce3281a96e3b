"""Byte counts in binary units: 1 KiB is 1024 bytes, 1 MiB is 1024 KiB."""

STEP = 1024


def to_kib(n_bytes):
    """Kibibytes, as a float."""
    return n_bytes / STEP


def to_mib(n_bytes):
    """Mebibytes, as a float."""
    return n_bytes / STEP * STEP
