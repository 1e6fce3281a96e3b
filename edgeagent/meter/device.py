"""The device and software provenance snapshot recorded with every run.

Enough to tell two runs' hardware and builds apart and to reproduce them, and nothing that
identifies the machine or its owner: no hostname, serial numbers or user names.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import subprocess
import sys
from pathlib import Path

import psutil

import edgeagent

# CPU features that decide which llama.cpp kernels run (x86 "flags", arm "Features").
FLAGS_OF_INTEREST = (
    # x86
    "sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512bw", "avx512vl",
    "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16",
    # arm (aarch64 Linux says "asimd" where 32-bit arm says "neon")
    "neon", "asimd", "asimdhp", "asimddp", "fphp", "i8mm", "bf16", "sve", "sve2", "sme",
)  # fmt: skip

AMX_WARNING = (
    "this CPU has AMX: llama.cpp built natively for it crashes; rebuild with "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall '
    "llama-cpp-python"
)


@functools.lru_cache(maxsize=1)
def cpuinfo() -> tuple[str | None, frozenset[str]]:
    """(CPU model name, all CPU flags) from /proc/cpuinfo; (None, {}) where it is absent."""
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return _cpuinfo_non_linux()
    model: str | None = None
    flags: set[str] = set()
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        # x86 "model name"; arm names the SoC in "Hardware" or the board in "Model".
        if key in ("model name", "hardware", "model", "cpu model") and value and model is None:
            if not value.isdigit():  # x86 also has a numeric "model" line
                model = value
        elif key in ("flags", "features"):
            flags.update(value.split())
    return model, frozenset(flags)


def _cpuinfo_non_linux() -> tuple[str | None, frozenset[str]]:
    if sys.platform == "darwin":
        brand = _run(["sysctl", "-n", "machdep.cpu.brand_string"])
        # Apple silicon always has NEON; sysctl names the rest as hw.optional.*
        flags = {"neon"} if platform.machine() == "arm64" else set()
        return brand, frozenset(flags)
    return (platform.processor() or None), frozenset()


def _device_model() -> str | None:
    """The board or laptop model (Jetson, Raspberry Pi: device tree; PCs: DMI)."""
    for path in ("/proc/device-tree/model", "/sys/class/dmi/id/product_name"):
        try:
            value = Path(path).read_text(errors="replace").strip("\x00\n ")
        except OSError:
            continue
        if value:
            return value
    return None


def _os_release() -> str | None:
    try:
        text = Path("/etc/os-release").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("PRETTY_NAME="):
            return line.partition("=")[2].strip().strip('"') or None
    return None


def _run(cmd: list[str], cwd: Path | None = None) -> str | None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def source_git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the edgeagent source tree when it is a git checkout, else None.

    Only the directory holding the package is asked: an installed wheel inside some
    other repository (a venv in a project) must not report that repository's commit.
    """
    root = Path(edgeagent.__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None, None
    commit = _run(["git", "rev-parse", "HEAD"], cwd=root)
    if commit is None:
        return None, None
    status = _run(["git", "status", "--porcelain"], cwd=root)
    return commit, (None if status is None else bool(status))


def _package_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def has_amx() -> bool:
    return any(flag.startswith("amx") for flag in cpuinfo()[1])


def amx_warning() -> str | None:
    """A one-line warning on CPUs with AMX, where native llama.cpp builds crash."""
    return AMX_WARNING if has_amx() else None


def device_snapshot(llama_system_info: str | None = None) -> dict:
    """Hardware and software provenance for a run record (JSON-serialisable)."""
    cpu_model, flags = cpuinfo()
    commit, dirty = source_git_state()
    return {
        "device_model": _device_model(),
        "os": platform.system(),
        "os_release": _os_release(),
        "kernel": platform.release(),
        "platform": platform.platform(),  # unlike platform.uname(), carries no hostname
        "machine": platform.machine(),
        "cpu_model": cpu_model,
        "cpu_flags": sorted(f for f in FLAGS_OF_INTEREST if f in flags),
        "amx": any(flag.startswith("amx") for flag in flags),
        "cpu_logical_cores": psutil.cpu_count(logical=True),
        "cpu_physical_cores": psutil.cpu_count(logical=False),
        "memory_total_bytes": psutil.virtual_memory().total,
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "edgeagent_version": edgeagent.__version__,
        "edgeagent_git_commit": commit,
        "edgeagent_git_dirty": dirty,
        "llama_cpp_python_version": _package_version("llama_cpp_python"),
        "llama_system_info": llama_system_info,
    }
