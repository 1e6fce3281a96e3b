"""A run's recorded setup as report lines: the llama.cpp settings as asked and as read back,
and the device (board, CPU, memory, OS, the build's compiled-in features, power mode, memory
bandwidth). `build_features` lives here, not in the doctor, so that reading a run needs no
part of the machine checks (the doctor imports it from here)."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from typing import Any

from ..rundir import Provenance


def build_features(system_info: str) -> dict[str, bool]:
    """llama_print_system_info's `NAME = 1` pairs (the CPU features compiled in)."""
    return {m[1]: m[2] == "1" for m in re.finditer(r"([A-Z0-9_]+) = (\d)", system_info)}


def _gib(n: Any) -> str:
    return f"{n / 2**30:.1f} GiB" if isinstance(n, (int, float)) else "? GiB"


def settings_lines(model: Mapping[str, Any]) -> list[str]:
    """The llama.cpp settings as llama.cpp reported them (read back), and where one differs
    from what was asked, both; nothing for an endpoint or a run from before they were kept."""
    asked = model.get("settings") or {}
    got = model.get("settings_read_back") or {}
    if not asked:
        return []

    def show(key: str) -> str:
        value = got.get(key, asked.get(key))
        text = {True: "on", False: "off", None: "?"}.get(value, str(value)) if isinstance(
            value, (bool, type(None))) else str(value)
        if key in got and asked.get(key) is not None and not _same(key, got[key], asked[key]):
            text += f" (asked {asked[key]})"
        return text

    parts = [f"{label} {show(key)}" for key, label in (
        ("threads", "threads"), ("threads_batch", "batch threads"), ("n_batch", "n_batch"),
        ("n_ubatch", "n_ubatch"), ("flash_attn", "flash_attn"), ("type_k", "K"),
        ("type_v", "V"), ("gpu_layers", "gpu layers"), ("mmap", "mmap"), ("mlock", "mlock"))]
    return ["llama.cpp " + ", ".join(parts) + " (read back from llama.cpp)"]


def _same(key: str, got: Any, asked: Any) -> bool:
    """Whether llama.cpp used what was asked; flash attention is asked as auto|on|off (older
    runs: a bool) and read back as a bool, and `auto` differs from either."""
    if key == "flash_attn":
        return asked in (True, False, "on", "off") and got == (asked in (True, "on"))
    return got == asked


def device_lines(prov: Provenance) -> list[str]:
    """The device a run was measured on, from its provenance: board, CPU, cores, memory, OS,
    the llama.cpp build's compiled-in features, the Jetson power mode and the memory
    bandwidth; a part the run did not record is left out."""
    device = prov.device
    board = prov.power.get("jetson_board") or {}
    name = board.get("model") or device.get("device_model")
    cores = device.get("cpu_physical_cores")
    lines = [
        f"device {name + ': ' if name else ''}{device.get('cpu_model') or 'unknown CPU'}, "
        f"{cores if cores is not None else '?'} cores / {device.get('cpu_logical_cores')} "
        f"threads, {_gib(device.get('memory_total_bytes'))} memory, "
        f"{device.get('os_release') or device.get('os')} (kernel {device.get('kernel')}, "
        f"{device.get('machine')})"
    ]
    info = device.get("llama_system_info")
    if info or device.get("llama_cpp_python_version"):
        on = [k for k, v in build_features(info or "").items() if v]
        lines.append(f"build  llama-cpp-python {device.get('llama_cpp_python_version')}; "
                     f"compiled in: {' '.join(on) or 'no CPU features reported'}")
    if board.get("nvpmodel_name") or board.get("nvpmodel_id") is not None:
        lines.append(f"power mode  nvpmodel {board.get('nvpmodel_name')} (id "
                     f"{board.get('nvpmodel_id')}, {board.get('nvpmodel_source')}); L4T "
                     f"{board.get('l4t_release') or '?'}")
    return lines + _bandwidth_lines(device.get("memory_bandwidth") or {})


def _bandwidth_lines(bw: dict[str, Any]) -> list[str]:
    """The recorded memory bandwidth, or why there is none; nothing when never measured."""
    if bw.get("gbs"):
        when = time.strftime("%Y-%m-%d", time.localtime(bw["measured_unix"])) if isinstance(
            bw.get("measured_unix"), (int, float)) else "?"
        return [f"memory bandwidth {bw['gbs']:.1f} GB/s (streaming copy, measured {when}"
                f"{', cached' if bw.get('cached') else ''})"]
    if bw:
        return [f"memory bandwidth n/a ({bw.get('null_reason')})"]
    return []
