"""Memory bandwidth by a streaming copy (numpy), the roofline that decode is measured against.

Decode of a quantized model is memory-bound: each token reads every weight once plus the KV
cache. A STREAM-style copy (read one buffer, write another, both far larger than the caches)
gives the bandwidth the device sustains; the best of several repeats is reported, as STREAM
does. `edgeagent doctor --bandwidth` measures it.

Measured once per device and cached (`device_bandwidth`): every run records the cached value
in its provenance, so reports rate decode against the roofline without `--bandwidth-gbs`.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Bandwidth:
    gbs: float  # best copy bandwidth, 1e9 bytes/s, counting bytes read + bytes written
    buffer_bytes: int
    repeats: int
    method: str = "numpy.copyto streaming copy, best of repeats, read+write bytes"


def measure_bandwidth(buffer_mib: int = 256, repeats: int = 5) -> Bandwidth:
    import numpy as np

    n = buffer_mib * 1024 * 1024 // 8
    src = np.ones(n, dtype=np.float64)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in before timing
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    moved = 2 * src.nbytes
    return Bandwidth(moved / best / 1e9, src.nbytes, repeats)


def cache_path() -> Path:
    """$EDGEAGENT_BANDWIDTH_CACHE, else ~/.cache/edgeagent/bandwidth.json."""
    env = os.environ.get("EDGEAGENT_BANDWIDTH_CACHE")
    return Path(env).expanduser() if env else (
        Path.home() / ".cache" / "edgeagent" / "bandwidth.json")


def device_key(device: dict[str, Any]) -> str:
    """What makes two runs the same device for the bandwidth: CPU, cores, memory, machine."""
    return "|".join(str(device.get(k)) for k in (
        "device_model", "cpu_model", "cpu_logical_cores", "memory_total_bytes", "machine"))


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def store_bandwidth(device: dict[str, Any], bw: Bandwidth) -> dict[str, Any]:
    """Record a measurement for this device in the cache; returns the recorded entry."""
    entry = {**asdict(bw), "measured_unix": time.time()}
    cache = _read_cache()
    cache[device_key(device)] = entry
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(cache, indent=2))
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only means measuring again next time
    return entry


def device_bandwidth(device: dict[str, Any], *, measure: bool = True) -> dict[str, Any]:
    """This device's memory bandwidth for the run's provenance: the cached measurement, or
    one made now (a few seconds, once per device) and cached; `gbs` None with the reason
    when it cannot be measured."""
    entry = _read_cache().get(device_key(device))
    if isinstance(entry, dict) and isinstance(entry.get("gbs"), (int, float)):
        return {**entry, "cached": True, "cache": str(cache_path())}
    if not measure:
        return {"gbs": None, "null_reason": "not measured on this device yet "
                "(`edgeagent doctor --bandwidth` measures it)"}
    try:
        import psutil

        # two buffers of at most 1/8 of the free memory each: safe on a 1 GB board
        free_mib = psutil.virtual_memory().available >> 20
        bw = measure_bandwidth(buffer_mib=max(16, min(256, free_mib // 8)))
    except ImportError:
        return {"gbs": None, "null_reason": "numpy is not installed (pip install numpy, "
                "or pass --bandwidth-gbs to `edgeagent report`)"}
    except MemoryError:
        return {"gbs": None, "null_reason": "not enough memory for the copy buffers"}
    return {**store_bandwidth(device, bw), "cached": False, "cache": str(cache_path())}
