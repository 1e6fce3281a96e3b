#!/usr/bin/env python3
"""Build the C++ `llama-server` from the llama.cpp commit the installed llama-cpp-python vendors.

    python tools/build_llama_server.py [--cache DIR] [--jobs 2] [--work DIR] [--force]

MLPerf's Edge Agentic reference serves the model with llama.cpp's own C++ `llama-server`;
comparing the in-process engine against it is only fair when both run the same llama.cpp
code. llama-cpp-python's source distribution carries that code in vendor/llama.cpp, so
this script downloads the sdist of exactly the installed version (`pip download
--no-binary llama-cpp-python --no-deps llama-cpp-python==X`), configures it with `-DGGML_NATIVE=OFF`
(native builds crash on this machine's AMX CPUs, the same flag the wheel was built with)
and builds only the `llama-server` target. The binary lands in
~/.cache/edgeagent/llama-server/<llama-cpp-python version>/llama-server (with the shared
libraries it links next to it), where `edgeagent doctor` and tools/bench_server.py find it.
Prints the binary's `--version` output and its path. Idempotent: an existing binary is
reused unless --force.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from edgeagent.engine.llama_server import llama_server_dir  # noqa: E402


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=cwd, check=True)


def _sdist(version: str, work: Path) -> Path:
    dl = work / "sdist"
    dl.mkdir(parents=True, exist_ok=True)
    found = sorted(dl.glob(f"llama_cpp_python-{version}.tar.gz")) + sorted(
        dl.glob(f"llama-cpp-python-{version}.tar.gz"))  # fmt: skip
    if not found:
        # --no-binary for this one package only: with `:all:` pip also builds every build
        # dependency of its metadata step from source (setuptools-scm, hatchling, ...), which
        # took the two cores for many minutes and starved a run beside it.
        _run([sys.executable, "-m", "pip", "download", "--no-binary", "llama-cpp-python",
              "--no-deps", f"llama-cpp-python=={version}", "-d", str(dl)])  # fmt: skip
        found = sorted(dl.glob("*.tar.gz"))
    if not found:
        raise SystemExit(f"no sdist for llama-cpp-python {version} in {dl}")
    src = work / "src"
    if not src.exists():
        with tarfile.open(found[0]) as tar:
            tar.extractall(src, filter="data")
    tops = [p for p in src.iterdir() if p.is_dir()]
    llama = tops[0] / "vendor" / "llama.cpp"
    if not (llama / "CMakeLists.txt").exists():
        raise SystemExit(f"{found[0]} carries no vendor/llama.cpp (looked in {llama})")
    return llama


def build(version: str, out_dir: Path, work: Path, jobs: int) -> Path:
    llama = _sdist(version, work)
    build_dir = work / "build"
    _run(["cmake", "-S", str(llama), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
          "-DGGML_NATIVE=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_BUILD_TESTS=OFF",
          "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON",
          "-DBUILD_SHARED_LIBS=OFF"])  # fmt: skip
    _run(["cmake", "--build", str(build_dir), "--target", "llama-server", "-j", str(jobs)])
    built = next((p for p in build_dir.rglob("llama-server")
                  if p.is_file() and os.access(p, os.X_OK)), None)
    if built is None:
        raise SystemExit(f"the build finished but no llama-server binary is under {build_dir}")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / "llama-server"
    shutil.copy2(built, target)
    # the build is static; a shared one would need libllama/libggml beside the binary
    for lib in build_dir.rglob("*.so*"):
        shutil.copy2(lib, out_dir / lib.name)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--cache", type=Path, default=None,
                    help="default: ~/.cache/edgeagent/llama-server/<version>")
    ap.add_argument("--work", type=Path, default=None,
                    help="build directory (default: a temporary one, removed after)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--force", action="store_true",
                    help="rebuild even when the binary is already cached")
    args = ap.parse_args(argv)
    version = importlib.metadata.version("llama_cpp_python")
    out_dir = args.cache or llama_server_dir(version)
    target = out_dir / "llama-server"
    if args.force or not target.exists():
        if args.work is not None:
            args.work.mkdir(parents=True, exist_ok=True)
            target = build(version, out_dir, args.work, args.jobs)
        else:
            with tempfile.TemporaryDirectory(prefix="llama-server-build-") as tmp:
                target = build(version, out_dir, Path(tmp), args.jobs)
    done = subprocess.run([str(target), "--version"], capture_output=True, text=True, timeout=60)
    print((done.stdout + done.stderr).strip())
    print(f"llama-server for llama-cpp-python {version}: {target}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
