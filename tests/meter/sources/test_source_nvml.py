"""NVML source family, against a fake pynvml module (nvidia-ml-py is not installed here)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from edgeagent.meter.energy import EnergyCounter, PowerSource, read_source
from edgeagent.meter.sources import nvml as nvml_source
from edgeagent.meter.sources.family import SCOPES, Unavailable


# The error hierarchy mirrors pynvml's: every error is an NVMLError subclass.
class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):  # noqa: N801 - pynvml's own spelling
    pass


class NVMLError_GpuIsLost(NVMLError):  # noqa: N801
    pass


class NVMLError_LibraryNotFound(NVMLError):  # noqa: N801
    pass


class NVMLError_Unknown(NVMLError):  # noqa: N801
    pass


@dataclass
class FakeGpu:
    name: str | bytes = b"NVIDIA GeForce RTX 4090"
    energy_mj: int | None = 123_456_789  # None: NotSupported (pre-Volta)
    power_mw: int | None = 71_234  # None: NotSupported
    power_error: type[NVMLError] | None = None
    lost: bool = False  # fell off the bus: every call raises GpuIsLost


def fake_nvml(
    gpus: list[FakeGpu],
    init_error: type[NVMLError] | None = None,
    with_energy: bool = True,
) -> SimpleNamespace:
    calls: list[str] = []

    def nvmlInit() -> None:
        calls.append("init")
        if init_error is not None:
            raise init_error("NVML Shared Library Not Found")

    def nvmlShutdown() -> None:
        calls.append("shutdown")

    def nvmlDeviceGetHandleByIndex(index: int) -> FakeGpu:
        return gpus[index]

    def check(gpu: FakeGpu) -> None:
        if gpu.lost:
            raise NVMLError_GpuIsLost("GPU is lost")

    def nvmlDeviceGetName(gpu: FakeGpu) -> str | bytes:
        check(gpu)
        return gpu.name

    def nvmlDeviceGetTotalEnergyConsumption(gpu: FakeGpu) -> int:
        check(gpu)
        if gpu.energy_mj is None:
            raise NVMLError_NotSupported("Not Supported")
        return gpu.energy_mj

    def nvmlDeviceGetPowerUsage(gpu: FakeGpu) -> int:
        check(gpu)
        if gpu.power_error is not None:
            raise gpu.power_error("power error")
        if gpu.power_mw is None:
            raise NVMLError_NotSupported("Not Supported")
        return gpu.power_mw

    module = SimpleNamespace(
        NVMLError=NVMLError,
        NVMLError_NotSupported=NVMLError_NotSupported,
        NVMLError_GpuIsLost=NVMLError_GpuIsLost,
        NVMLError_LibraryNotFound=NVMLError_LibraryNotFound,
        nvmlInit=nvmlInit,
        nvmlShutdown=nvmlShutdown,
        nvmlDeviceGetCount=lambda: len(gpus),
        nvmlDeviceGetHandleByIndex=nvmlDeviceGetHandleByIndex,
        nvmlDeviceGetName=nvmlDeviceGetName,
        nvmlDeviceGetPowerUsage=nvmlDeviceGetPowerUsage,
        calls=calls,
    )
    if with_energy:  # very old bindings lack the call altogether
        module.nvmlDeviceGetTotalEnergyConsumption = nvmlDeviceGetTotalEnergyConsumption
    return module


def _jetson_root(tmp_path: Path, model: str) -> Path:
    (tmp_path / "proc/device-tree").mkdir(parents=True)
    (tmp_path / "proc/device-tree/model").write_text(model + "\x00")
    return tmp_path


# --- sources ---------------------------------------------------------------------------


def test_energy_counter_is_preferred_and_reads_exact_joules(tmp_path: Path) -> None:
    gpu = FakeGpu()
    found = nvml_source.discover(tmp_path, nvml=fake_nvml([gpu]))

    assert found.unavailable == ()
    (source,) = found.sources
    assert isinstance(source, EnergyCounter) and not hasattr(source, "read_watts")
    assert source.name == "nvml:gpu0" and source.scope == "gpu" and source.scope in SCOPES
    assert source.wrap_joules is None
    info = source.info
    assert (info.family, info.unit, info.kind) == ("nvml", "J", "counter")
    assert info.rail == "NVIDIA GeForce RTX 4090"  # bytes from older bindings, decoded
    assert info.path == "nvmlDeviceGetTotalEnergyConsumption"

    assert source.read_joules() == 123_456.789
    gpu.energy_mj = 123_500_000
    assert source.read_joules() == 123_500.0
    assert read_source(source) == 123_500.0


def test_power_is_the_fallback_without_an_energy_counter(tmp_path: Path) -> None:
    gpu = FakeGpu(name="Tesla P100-PCIE-16GB", energy_mj=None, power_mw=71_234)
    nvml = fake_nvml([gpu])
    (source,) = nvml_source.discover(tmp_path, nvml=nvml).sources

    assert isinstance(source, PowerSource) and not hasattr(source, "read_joules")
    assert source.name == "nvml:gpu0" and source.scope == "gpu"
    assert (source.info.unit, source.info.kind) == ("W", "power")
    assert source.info.path == "nvmlDeviceGetPowerUsage"
    assert source.info.rail == "Tesla P100-PCIE-16GB"
    assert source.read_watts() == 71.234
    gpu.power_mw = 250_000
    assert source.read_watts() == 250.0
    assert "shutdown" not in nvml.calls  # NVML stays initialised for the reads


def test_bindings_without_the_energy_call_fall_back_to_power(tmp_path: Path) -> None:
    nvml = fake_nvml([FakeGpu(power_mw=15_500)], with_energy=False)
    (source,) = nvml_source.discover(tmp_path, nvml=nvml).sources
    assert source.read_watts() == 15.5


def test_a_gpu_without_power_readings_is_unavailable_not_zero(tmp_path: Path) -> None:
    nvml = fake_nvml([FakeGpu(energy_mj=None, power_mw=None)])
    found = nvml_source.discover(tmp_path, nvml=nvml)

    assert found.sources == ()
    assert found.unavailable == (
        Unavailable("nvml", "nvml:gpu0", "not supported by this GPU/driver", None),
    )
    assert nvml.calls[-1] == "shutdown"  # nothing will read through NVML


def test_each_gpu_is_judged_on_its_own(tmp_path: Path) -> None:
    gpus = [
        FakeGpu(energy_mj=None, power_mw=None),
        FakeGpu(name="NVIDIA A100-SXM4-40GB", energy_mj=5_000),
        FakeGpu(energy_mj=None, power_mw=42_000),
    ]
    found = nvml_source.discover(tmp_path, nvml=fake_nvml(gpus))

    assert [s.name for s in found.sources] == ["nvml:gpu1", "nvml:gpu2"]
    assert [s.info.kind for s in found.sources] == ["counter", "power"]
    assert [u.name for u in found.unavailable] == ["nvml:gpu0"]


def test_another_nvml_error_is_reported_as_such(tmp_path: Path) -> None:
    nvml = fake_nvml([FakeGpu(energy_mj=None, power_error=NVMLError_Unknown)])
    (u,) = nvml_source.discover(tmp_path, nvml=nvml).unavailable
    assert u.name == "nvml:gpu0" and u.reason == "NVML error: power error"


# --- absent --------------------------------------------------------------------------


def test_init_failure_means_no_nvidia_gpu(tmp_path: Path) -> None:
    found = nvml_source.discover(tmp_path, nvml=fake_nvml([], init_error=NVMLError_LibraryNotFound))
    assert found.sources == ()
    assert found.unavailable == (Unavailable("nvml", "nvml", "not present", None),)


def test_no_devices_means_not_present(tmp_path: Path) -> None:
    nvml = fake_nvml([])
    found = nvml_source.discover(tmp_path, nvml=nvml)
    assert found.unavailable == (Unavailable("nvml", "nvml", "not present", None),)
    assert nvml.calls == ["init", "shutdown"]


def test_missing_nvidia_ml_py_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    found = nvml_source.discover(tmp_path)
    assert found.sources == ()
    assert found.unavailable == (
        Unavailable(
            "nvml", "nvml", "nvidia-ml-py not installed", 'pip install "edgeagent[nvml]"'
        ),
    )


# --- Jetson ----------------------------------------------------------------------------


def test_jetson_before_thor_is_not_supported_rather_than_absent(tmp_path: Path) -> None:
    root = _jetson_root(tmp_path, "NVIDIA Jetson AGX Orin Developer Kit")
    found = nvml_source.discover(root, nvml=fake_nvml([], init_error=NVMLError_LibraryNotFound))
    (u,) = found.unavailable
    assert (u.name, u.reason) == ("nvml", "not supported by this GPU/driver")
    assert "jetson family" in (u.fix or "")


def test_jetson_gpu_errors_are_not_supported(tmp_path: Path) -> None:
    root = _jetson_root(tmp_path, "NVIDIA Jetson Orin Nano Developer Kit")
    gpu = FakeGpu(name="Orin (nvgpu)", energy_mj=None, power_error=NVMLError_Unknown)
    (u,) = nvml_source.discover(root, nvml=fake_nvml([gpu])).unavailable
    assert (u.name, u.reason) == ("nvml:gpu0", "not supported by this GPU/driver")
    assert "INA3221" in (u.fix or "")


def test_jetson_without_nvidia_ml_py_is_not_told_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)
    root = _jetson_root(tmp_path, "NVIDIA Jetson Xavier NX Developer Kit")
    (u,) = nvml_source.discover(root).unavailable
    assert u.reason == "not supported by this GPU/driver" and "pip" not in (u.fix or "")


def test_jetson_thor_is_read_like_any_gpu(tmp_path: Path) -> None:
    root = _jetson_root(tmp_path, "NVIDIA Jetson AGX Thor Developer Kit")
    (source,) = nvml_source.discover(root, nvml=fake_nvml([FakeGpu(energy_mj=9_000)])).sources
    assert source.read_joules() == 9.0


# --- failures after discovery ---------------------------------------------------------


def test_gpu_lost_mid_run_reads_none(tmp_path: Path) -> None:
    counter_gpu = FakeGpu(energy_mj=1_000)
    power_gpu = FakeGpu(energy_mj=None, power_mw=30_000)
    found = nvml_source.discover(tmp_path, nvml=fake_nvml([counter_gpu, power_gpu]))
    counter, power = found.sources
    assert (counter.read_joules(), power.read_watts()) == (1.0, 30.0)

    counter_gpu.lost = power_gpu.lost = True
    assert counter.read_joules() is None
    assert power.read_watts() is None
    assert read_source(counter) is None and read_source(power) is None

    counter_gpu.lost = False  # back again (e.g. a transient error): reads resume
    assert counter.read_joules() == 1.0
