"""NVIDIA dGPU power through NVML (the official `nvidia-ml-py` package, `import pynvml`).

Per GPU the total-energy counter (mJ since the driver loaded, Volta and newer) is preferred:
differences of a counter at phase edges are more exact than integrating sampled power. Older
GPUs fall back to nvmlDeviceGetPowerUsage (mW), which on Ampere (except GA100) and newer is
a 1-second average rather than an instantaneous reading.

nvidia-ml-py is an optional dependency: it is imported only when discovery runs, and tests
inject a fake module object instead.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edgeagent.meter.sources.family import Described, Discovery, SourceInfo, Unavailable

FAMILY = "nvml"
NOT_INSTALLED_FIX = 'pip install "edgeagent[nvml]"'
NOT_SUPPORTED = "not supported by this GPU/driver"
JETSON_FIX = (
    "NVML has no power readings on Jetson before Thor; the jetson family reads the "
    "INA3221 rails instead"
)


@dataclass(frozen=True)
class NvmlEnergyCounter(Described):
    """nvmlDeviceGetTotalEnergyConsumption of one GPU, in joules."""

    info: SourceInfo
    nvml: Any = field(repr=False, compare=False)
    handle: Any = field(repr=False, compare=False)
    # A 64-bit mJ counter does not wrap in practice; a driver reload resets it, which the
    # attribution sees as the counter going backwards and reports as a gap.
    wrap_joules: float | None = None

    def read_joules(self) -> float | None:
        try:
            return self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle) / 1000.0
        except Exception:  # noqa: BLE001 - a lost GPU must not stop the sampler
            return None


@dataclass(frozen=True)
class NvmlPowerSource(Described):
    """nvmlDeviceGetPowerUsage of one GPU, in watts."""

    info: SourceInfo
    nvml: Any = field(repr=False, compare=False)
    handle: Any = field(repr=False, compare=False)

    def read_watts(self) -> float | None:
        try:
            return self.nvml.nvmlDeviceGetPowerUsage(self.handle) / 1000.0
        except Exception:  # noqa: BLE001 - a lost GPU must not stop the sampler
            return None


def discover(root: Path = Path("/"), nvml: object | None = None) -> Discovery:
    """One source per NVIDIA GPU: its energy counter where it has one, else its power.

    nvml is the pynvml module (imported here when None). root is read only to recognise a
    Jetson, where NVML has no power readings before Thor and the advice differs.
    """
    jetson = _is_pre_thor_jetson(root)
    if nvml is None:
        try:
            nvml = importlib.import_module("pynvml")
        except ImportError:
            if jetson:  # installing nvidia-ml-py would not help there
                return _only(Unavailable(FAMILY, FAMILY, NOT_SUPPORTED, JETSON_FIX))
            return _only(
                Unavailable(FAMILY, FAMILY, "nvidia-ml-py not installed", NOT_INSTALLED_FIX)
            )
    error = _error_class(nvml)
    try:
        nvml.nvmlInit()
    except error:  # no driver or library: there is no NVIDIA GPU to read
        if jetson:
            return _only(Unavailable(FAMILY, FAMILY, NOT_SUPPORTED, JETSON_FIX))
        return _only(Unavailable(FAMILY, FAMILY, "not present"))
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except error as exc:
        _shutdown(nvml)
        return _only(Unavailable(FAMILY, FAMILY, f"NVML error: {_detail(exc)}"))
    if count <= 0:
        _shutdown(nvml)
        if jetson:
            return _only(Unavailable(FAMILY, FAMILY, NOT_SUPPORTED, JETSON_FIX))
        return _only(Unavailable(FAMILY, FAMILY, "not present"))

    sources: list[NvmlEnergyCounter | NvmlPowerSource] = []
    unavailable: list[Unavailable] = []
    for index in range(count):
        found = _discover_gpu(nvml, index, jetson)
        if isinstance(found, Unavailable):
            unavailable.append(found)
        else:
            sources.append(found)
    if not sources:
        _shutdown(nvml)  # nothing will read through NVML, so release it
    return Discovery(sources=tuple(sources), unavailable=tuple(unavailable))


def _discover_gpu(
    nvml: Any, index: int, jetson: bool
) -> NvmlEnergyCounter | NvmlPowerSource | Unavailable:
    name = f"{FAMILY}:gpu{index}"
    error = _error_class(nvml)
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except error as exc:
        return Unavailable(FAMILY, name, f"NVML error: {_detail(exc)}")
    model = _gpu_model(nvml, handle)
    not_supported_fix = JETSON_FIX if jetson else None

    # The counter first (Volta and newer); any failure of it falls back to power.
    energy = getattr(nvml, "nvmlDeviceGetTotalEnergyConsumption", None)
    if energy is not None:
        try:
            energy(handle)
        except error:
            pass
        else:
            info = SourceInfo(
                family=FAMILY,
                name=name,
                scope="gpu",
                rail=model,
                unit="J",
                kind="counter",
                path="nvmlDeviceGetTotalEnergyConsumption",
                note="NVML total energy counter (mJ since the driver loaded)",
            )
            return NvmlEnergyCounter(info, nvml, handle)

    try:
        nvml.nvmlDeviceGetPowerUsage(handle)
    except error as exc:
        if _is_not_supported(nvml, exc) or jetson:
            return Unavailable(FAMILY, name, NOT_SUPPORTED, not_supported_fix)
        return Unavailable(FAMILY, name, f"NVML error: {_detail(exc)}")
    info = SourceInfo(
        family=FAMILY,
        name=name,
        scope="gpu",
        rail=model,
        unit="W",
        kind="power",
        path="nvmlDeviceGetPowerUsage",
        note="NVML power usage: a 1 s average on Ampere (except GA100) and newer, "
        "instantaneous on older GPUs; no energy counter on this GPU/driver",
    )
    return NvmlPowerSource(info, nvml, handle)


def _is_pre_thor_jetson(root: Path) -> bool:
    """A Jetson whose GPU NVML cannot read power (every model before Thor)."""
    try:
        model = (root / "proc/device-tree/model").read_text(errors="replace")
    except OSError:
        model = ""
    if "Jetson" in model:
        return "Thor" not in model
    # L4T ships this file even where the device tree is not visible (some containers).
    return (root / "etc/nv_tegra_release").is_file()


def _gpu_model(nvml: Any, handle: object) -> str | None:
    try:
        value = nvml.nvmlDeviceGetName(handle)
    except Exception:  # noqa: BLE001 - the name is provenance only, never worth failing for
        return None
    # Older nvidia-ml-py returns bytes, newer returns str.
    if isinstance(value, bytes):
        value = value.decode(errors="replace")
    return str(value) or None


def _error_class(nvml: Any) -> type[BaseException]:
    error = getattr(nvml, "NVMLError", None)
    return error if isinstance(error, type) and issubclass(error, BaseException) else Exception


def _is_not_supported(nvml: Any, exc: BaseException) -> bool:
    cls = getattr(nvml, "NVMLError_NotSupported", None)
    return isinstance(cls, type) and isinstance(exc, cls)


def _detail(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _shutdown(nvml: Any) -> None:
    try:
        nvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - shutting down is tidiness, not correctness
        pass


def _only(unavailable: Unavailable) -> Discovery:
    return Discovery(unavailable=(unavailable,))
