"""packaging/: the build-wheels plan per target, its refusals, and the Jetson Dockerfile lint."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "packaging" / "build-wheels"
DOCKERFILE = REPO / "packaging" / "jetson" / "Dockerfile"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60)


def _module():  # noqa: ANN202 - the script has no .py suffix, so load it by path
    loader = importlib.machinery.SourceFileLoader("build_wheels", str(SCRIPT))
    spec = importlib.util.spec_from_loader("build_wheels", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_wheels"] = module  # dataclasses look their module up there
    loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "arch"), [("jetson-orin", "87"), ("jetson-xavier", "72"), ("jetson-thor", "110")])
def test_jetson_plans_build_cuda_for_the_boards_sm(tmp_path: Path, target: str, arch: str) -> None:
    proc = _run("--target", target, "--out", str(tmp_path / "w"), "--dry-run")
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    cmake = plan["steps"][1]["env"]["CMAKE_ARGS"]
    assert f"-DCMAKE_CUDA_ARCHITECTURES={arch}" in cmake and "-DGGML_CUDA=on" in cmake
    assert "-DGGML_NATIVE=OFF" in cmake
    assert plan["target"]["machine"] == ["aarch64"]
    # edgeagent wheel, then llama-cpp-python from source, then every other dependency
    assert plan["steps"][0]["argv"][1:4] == ["-m", "build", "--wheel"]
    assert "--no-binary" in plan["steps"][1]["argv"]
    assert plan["steps"][2]["argv"][-1] == "edgeagent"


@pytest.mark.slow
def test_portable_cpu_plan_never_builds_native(tmp_path: Path) -> None:
    plan = json.loads(_run("--target", "linux-x86_64-cpu", "--out", str(tmp_path),
                           "--extras", "tui,nvml", "--dry-run").stdout)
    assert plan["steps"][1]["env"]["CMAKE_ARGS"] == "-DGGML_NATIVE=OFF"
    assert plan["steps"][2]["argv"][-1] == "edgeagent[tui,nvml]"


@pytest.mark.slow
def test_a_target_for_another_machine_is_refused_with_exit_2(tmp_path: Path) -> None:
    other = "macos-arm64-metal" if platform.system() != "Darwin" else "jetson-orin"
    proc = _run("--target", other, "--out", str(tmp_path / "w"))
    assert proc.returncode == 2
    assert "run it on the target" in proc.stderr and proc.stderr.count("\n") == 1
    assert not (tmp_path / "w").exists()


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--target", "jetson-nano"], ["--extras", "tui;rm -rf"]])
def test_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    base = ["--target", "linux-x86_64-cpu", "--out", str(tmp_path), "--dry-run"]
    proc = _run(*base, *args)
    assert proc.returncode == 2 and "error" in proc.stderr


def test_constraints_pin_every_wheel_by_normalised_name(tmp_path: Path) -> None:
    for name in ("edgeagent-0.1.0-py3-none-any.whl",
                 "llama_cpp_python-0.3.36-cp311-cp311-linux_x86_64.whl",
                 "PyYAML-6.0.2-cp311-cp311-manylinux_2_17_x86_64.whl"):
        (tmp_path / name).write_bytes(b"")
    assert _module().constraints(tmp_path) == [
        "edgeagent==0.1.0", "llama-cpp-python==0.3.36", "pyyaml==6.0.2"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("hadolint") is None and not (
    Path(sys.executable).parent / "hadolint").exists(), reason="hadolint not installed")
def test_jetson_dockerfile_passes_hadolint() -> None:
    exe = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    proc = subprocess.run([exe, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_wheel_ships_every_bundled_suite_and_no_generator() -> None:
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    forced = config["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    tasks = sorted(p.name for p in (REPO / "tasks").iterdir() if p.is_dir())
    assert forced == {f"tasks/{name}": f"edgeagent/_tasks/{name}"
                      for name in tasks if name != "generators"}
