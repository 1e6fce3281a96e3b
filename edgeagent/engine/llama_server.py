"""Where the C++ `llama-server` built by tools/build_llama_server.py lives, and its version.

The binary is built from the llama.cpp commit that the installed llama-cpp-python vendors, so
it is cached per llama-cpp-python version: ~/.cache/edgeagent/llama-server/<version>/. A
binary built for another version serves a different llama.cpp and is reported as such.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
from pathlib import Path

BUILD_COMMAND = "python tools/build_llama_server.py"


def llama_server_root() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "edgeagent" / "llama-server"


def llama_server_dir(version: str) -> Path:
    return llama_server_root() / version


def installed_llama_cpp_version() -> str | None:
    try:
        return importlib.metadata.version("llama_cpp_python")
    except importlib.metadata.PackageNotFoundError:
        return None


def find_llama_server(version: str | None = None) -> Path | None:
    """The cached binary for `version` (default: the installed llama-cpp-python), or None."""
    version = version or installed_llama_cpp_version()
    if version is None:
        return None
    binary = llama_server_dir(version) / "llama-server"
    return binary if binary.is_file() and os.access(binary, os.X_OK) else None


def cached_versions() -> list[str]:
    """llama-cpp-python versions that have a cached binary (possibly not the installed one)."""
    root = llama_server_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "llama-server").is_file())


def server_version(binary: Path, timeout_s: float = 30.0) -> str:
    """`llama-server --version`, as it prints it (llama.cpp build number and commit)."""
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                          timeout=timeout_s)  # fmt: skip
    lines = [ln.strip() for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    # the version line is the one naming the build; the rest is backend/device chatter
    return next((ln for ln in lines if ln.startswith("version")), lines[-1] if lines else "")
