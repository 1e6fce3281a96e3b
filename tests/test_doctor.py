"""`edgeagent doctor`: findings and fixes, on fixture sysfs trees and a faked CPU/build."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edgeagent import doctor, host_busy
from edgeagent.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "sysfs"


def _tree(tmp_path: Path, rel: str) -> Path:
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / rel, root, symlinks=True)
    return root.resolve()


def _doctor_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["doctor", "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _find(report: dict, area: str, name: str) -> dict:
    matches = [f for f in report["findings"] if (f["area"], f["name"]) == (area, name)]
    assert len(matches) == 1, (area, name, report["findings"])
    return matches[0]


@pytest.mark.slow  # the doctor asks llama-server its version, where one is built
def test_jetson_tree_shows_board_release_and_module_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _doctor_json(capsys, "--root", str(_tree(tmp_path, "jetson/jp5_agx_orin")))
    assert _find(report, "jetson", "model")["detail"] == "Jetson AGX Orin Developer Kit"
    assert _find(report, "jetson", "L4T release")["detail"] == "35.4.1"
    total = _find(report, "power", "total")
    assert (total["status"], total["detail"]) == ("ok", "jetson:total (scope soc)")
    # NVML cannot read power on a Jetson before Thor: expected, so not a warning.
    assert _find(report, "power", "nvml")["status"] == "info"


@pytest.mark.slow
def test_root_only_rapl_counters_are_warnings_with_the_chmod_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _tree(tmp_path, "rapl/laptop")
    real_open, real_os_open = builtins.open, os.open

    # Tests run as root, so chmod would not stop the read: the kernel's EACCES is stood in
    # for at open(), as energy_uj is root-only since CVE-2020-8694.
    def deny(opener):  # noqa: ANN001, ANN202
        def fake(file, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            if str(file).endswith("energy_uj"):
                raise PermissionError(13, "Permission denied", str(file))
            return opener(file, *args, **kwargs)
        return fake

    monkeypatch.setattr(builtins, "open", deny(real_open))
    monkeypatch.setattr(os, "open", deny(real_os_open))
    report = _doctor_json(capsys, "--root", str(root))
    rapl = [f for f in report["findings"] if f["area"] == "power" and f["name"].startswith("rapl:")]
    assert [f["name"] for f in rapl] == [
        "rapl:package-0", "rapl:package-0/core", "rapl:package-0/uncore", "rapl:psys"]
    for f in rapl:
        assert (f["status"], f["detail"]) == ("warn", "permission denied")
        assert f["fix"].startswith("sudo chmod a+r /sys/class/powercap/intel-rapl:*/energy_uj")
    assert _find(report, "power", "total")["status"] == "warn"
    assert report["status"] == "warn"


@pytest.mark.slow
def test_readable_rapl_tree_picks_psys_as_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _doctor_json(capsys, "--root", str(_tree(tmp_path, "rapl/laptop")))
    assert _find(report, "power", "total")["detail"] == "rapl:psys (scope psys)"
    assert _find(report, "power", "rapl:psys")["status"] == "ok"


@pytest.mark.slow
def test_native_amx_build_on_an_amx_cpu_is_a_failure_with_the_portable_fix(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import llama_cpp

    monkeypatch.setattr(doctor, "has_amx", lambda: True)
    monkeypatch.setattr(llama_cpp, "llama_print_system_info",
                        lambda: b"CPU : AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | ")
    report = _doctor_json(capsys, "--root", str(tmp_path))
    amx = _find(report, "llama.cpp", "AMX")
    assert amx["status"] == "fail"
    assert 'CMAKE_ARGS="-DGGML_NATIVE=OFF"' in amx["fix"]
    assert report["status"] == "fail"


@pytest.mark.slow
def test_portable_build_on_an_amx_cpu_is_fine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(doctor, "has_amx", lambda: True)
    report = _doctor_json(capsys, "--root", str(tmp_path))
    assert _find(report, "llama.cpp", "AMX")["status"] == "ok"


def test_build_features_parse_llama_system_info() -> None:
    info = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | LLAMAFILE = 1 | "
    assert doctor.build_features(info) == {
        "SSE3": True, "AVX": True, "AVX2": True, "AVX512": False, "LLAMAFILE": True}


@pytest.mark.slow
def test_text_screen_names_areas_and_counts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["doctor", "--root", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for area in ("python:", "packages:", "llama.cpp:", "sqlite:", "models:", "power:"):
        assert f"\n{area}" in f"\n{out}"
    assert out.rstrip().splitlines()[-1].endswith("warning(s)")


def test_bad_root_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["doctor", "--root", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--root" in err and "not a directory" in err


@pytest.mark.slow
def test_bandwidth_is_measured_on_request(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "bandwidth.json"
    monkeypatch.setenv("EDGEAGENT_BANDWIDTH_CACHE", str(cache))
    report = _doctor_json(capsys, "--root", str(tmp_path), "--bandwidth")
    bw = _find(report, "memory", "bandwidth")
    gbs = float(bw["detail"].split(" GB/s")[0])
    # cached for this device: its runs record it and their reports rate decode against it
    assert gbs > 0.1 and f"cached in {cache}" in bw["detail"] and "reports" in bw["fix"]
    (entry,) = json.loads(cache.read_text()).values()
    assert entry["gbs"] == pytest.approx(gbs, abs=0.051)
    assert not [f for f in _doctor_json(capsys, "--root", str(tmp_path))["findings"]
                if f["name"] == "bandwidth"]


@pytest.mark.slow
def test_packages_name_the_extras_that_exist(capsys: pytest.CaptureFixture[str]) -> None:
    """textual is a core dependency (there is no [tui] extra); httpx comes with [endpoint]."""
    report = _doctor_json(capsys)
    packages = [f for f in report["findings"] if f["area"] == "packages"]
    assert not any("[tui]" in f"{f['detail']} {f['fix']}" for f in packages)
    textual = _find(report, "packages", "textual")
    assert "edgeagent view" in textual["detail"]
    httpx = _find(report, "packages", "httpx")
    assert "--endpoint" in httpx["detail"]


def _fake_server(directory: Path) -> Path:
    """A stand-in binary that answers --version as llama-server does (the finding's logic is
    under test, not llama.cpp; tests/replay/test_bench_server.py drives a real build)."""
    directory.mkdir(parents=True)
    binary = directory / "llama-server"
    binary.write_text("#!/bin/sh\necho 'load_backend: loaded CPU backend' >&2\n"
                      "echo 'version: 7000 (0123abcd)' >&2\necho 'built with cc' >&2\n")
    binary.chmod(0o755)
    return binary


@pytest.mark.slow
def test_llama_server_finding_absent_present_and_built_for_another_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.metadata

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    version = importlib.metadata.version("llama_cpp_python")
    absent = _find(_doctor_json(capsys), "llama.cpp", "llama-server")
    assert absent["status"] == "info" and "no C++ llama-server" in absent["detail"]
    assert absent["fix"].startswith("python tools/build_llama_server.py")

    root = tmp_path / "cache" / "edgeagent" / "llama-server"
    _fake_server(root / "0.0.1")
    other = _find(_doctor_json(capsys), "llama.cpp", "llama-server")
    assert other["status"] == "warn" and "0.0.1" in other["detail"]
    assert str(root / version) in other["fix"]

    binary = _fake_server(root / version)
    present = _find(_doctor_json(capsys), "llama.cpp", "llama-server")
    assert present["status"] == "ok"
    assert present["detail"].startswith(f"version: 7000 (0123abcd) at {binary}")


# A neighbour bounded by itself too: it stops after 5 s even if the kill below never came.
_BUSY = "import time\nend = time.monotonic() + 5\nwhile time.monotonic() < end:\n    pass"
_IDLE = "import time; time.sleep(5)"


def _neighbour(code: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", code])
    time.sleep(0.3)  # past the interpreter's start-up
    return proc


@pytest.mark.slow
def test_a_busy_neighbour_is_named_by_pid_with_the_fix() -> None:
    proc = _neighbour(_BUSY)
    try:
        load = host_busy.sample_host_load()  # one 0.5 s window
    finally:
        proc.kill()
        proc.wait()
    named = {p.pid: p for p in load.busy}
    assert proc.pid in named, load
    assert named[proc.pid].cpu_percent >= host_busy.BUSY_CPU_PERCENT
    assert "-c" in named[proc.pid].cmdline and os.getpid() not in named
    assert [p.cpu_percent for p in load.busy] == sorted((p.cpu_percent for p in load.busy),
                                                        reverse=True)
    busy, host = doctor.busy_findings(load)
    assert (busy.area, busy.name, busy.status) == ("cpu", "busy processes", "warn")
    assert f"pid {proc.pid} " in busy.detail and "docs/interference.md" in busy.fix
    assert host.name == "host load" and "CPUs busy over 0.5 s" in host.detail


@pytest.mark.slow
def test_a_quiet_neighbour_is_not_named(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    proc = _neighbour(_IDLE)
    try:
        report = _doctor_json(capsys, "--root", str(tmp_path))
    finally:
        proc.kill()
        proc.wait()
    busy = _find(report, "cpu", "busy processes")
    assert f"pid {proc.pid} " not in busy["detail"]
    assert _find(report, "cpu", "host load")["status"] in ("ok", "info", "warn")


def test_no_busy_process_is_ok_and_steal_warns() -> None:
    quiet = host_busy.HostLoad(0.5, 2, 10.0, (), 0, busy_share=0.04, steal_share=0.12)
    busy, host = doctor.busy_findings(quiet)
    assert (busy.status, busy.fix) == ("ok", None) and busy.detail.startswith("none above 10%")
    assert host.status == "warn" and "steal 12.0%" in host.detail
