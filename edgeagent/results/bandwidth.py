"""Memory bandwidth by a streaming copy (numpy), the roofline that decode is measured against.

Decode of a quantized model is memory-bound: each token reads every weight once plus the KV
cache. A STREAM-style copy (read one buffer, write another, both far larger than the caches)
gives the bandwidth the device sustains; the best of several repeats is reported, as STREAM
does. `edgeagent doctor --bandwidth` measures it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


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
