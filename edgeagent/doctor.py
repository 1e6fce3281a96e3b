"""`edgeagent doctor`: what this machine can do for a benchmark run, and what to fix.

Every check yields findings (ok / warn / fail / info) with the fix spelled out where there is
one. Checks read the machine only (no model is loaded, nothing is installed); `root` points
the sensor and board checks at a copied or fixture sysfs tree, as `edgeagent sensors` does.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import shutil
import sqlite3
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil

from edgeagent.host_busy import HostLoad, sample_host_load
from edgeagent.meter import AMX_WARNING, FLAGS_OF_INTEREST, has_amx
from edgeagent.results import build_features

STATUSES = ("ok", "info", "warn", "fail")

# The portable build command, as the README installs it.
LLAMA_BUILD_FIX = (
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall '
    "llama-cpp-python"
)

# What another busy process costs a run, measured on the CI machine kind (2 cores).
BUSY_FIX = ("close or pause them before timing a run: another busy process cuts llama.cpp's "
            "decode from 22.5 to 6.5 tok/s on a 2-core machine; see docs/interference.md")
STEAL_WARN_SHARE = 0.05  # the hypervisor taking more than this of the CPU time is a warning

# (distribution, the extra that brings it or None for a core dependency, what it is for)
PACKAGES: tuple[tuple[str, str | None, str], ...] = (
    ("llama_cpp_python", None, "the inference engine"),
    ("psutil", None, "CPU, memory and temperature readings"),
    ("PyYAML", None, "task and config files"),
    ("Jinja2", None, "chat templates"),
    ("rich", None, "console output"),
    ("textual", None, "the terminal dashboard and `edgeagent view`"),
    ("httpx", "endpoint", "`--endpoint URL`: OpenAI-compatible servers"),
    ("onnxruntime", "retrieval", "code search embeddings"),
    ("tokenizers", "retrieval", "code search embeddings"),
    ("sqlean.py", "retrieval", "SQLite that can load sqlite-vec"),
    ("sqlite-vec", "retrieval", "the vector index"),
    ("nvidia-ml-py", "nvml", "NVIDIA GPU power through NVML"),
    ("matplotlib", "plots", "plots in HTML reports"),
    ("huggingface_hub", "hub", "model downloads from the Hugging Face hub"),
)


@dataclass(frozen=True)
class Finding:
    area: str  # python | packages | llama.cpp | cpu | sqlite | models | memory | disk | power...
    name: str
    status: str  # one of STATUSES
    detail: str
    fix: str | None = None


def run_checks(root: Path = Path("/"), *, bandwidth: bool = False) -> list[Finding]:
    """Every check, in the order the screen shows them; a check that crashes is a finding."""
    checks: tuple[Callable[[], Iterator[Finding]], ...] = (
        _python,
        _packages,
        _llama_cpp,
        _llama_server,
        _cpu,
        _busy,
        _sqlite,
        _models_and_resources,
        *((_bandwidth,) if bandwidth else ()),
        lambda: _power(root),
        lambda: _jetson(root),
    )
    findings: list[Finding] = []
    for check in checks:
        try:
            findings.extend(check())
        except Exception as exc:  # noqa: BLE001 - one broken probe must not hide the others
            name = getattr(check, "__name__", "check").strip("_")
            findings.append(Finding("doctor", name, "warn", f"check failed: {exc}"))
    return findings


def as_json(findings: list[Finding]) -> dict:
    worst = max((STATUSES.index(f.status) for f in findings), default=0)
    return {"status": STATUSES[worst], "findings": [asdict(f) for f in findings]}


def render_text(findings: list[Finding]) -> str:
    marks = {"ok": "ok  ", "info": "    ", "warn": "WARN", "fail": "FAIL"}
    lines: list[str] = []
    area = None
    first = {}  # each area once, where it first appears
    for i, f in enumerate(findings):
        first.setdefault(f.area, i)
    for f in sorted(findings, key=lambda f: first[f.area]):
        if f.area != area:
            area = f.area
            lines.append(f"{area}:")
        lines.append(f"  {marks[f.status]} {f.name}: {f.detail}")
        if f.fix:
            lines.append(f"         fix: {f.fix}")
    counts = {s: sum(1 for f in findings if f.status == s) for s in ("warn", "fail")}
    lines.append(f"{counts['fail']} problem(s), {counts['warn']} warning(s)")
    return "\n".join(lines)


# --- checks ----------------------------------------------------------------------------


def _bandwidth() -> Iterator[Finding]:
    from edgeagent.meter import device_snapshot
    from edgeagent.results import cache_path, measure_bandwidth, store_bandwidth

    bw = measure_bandwidth()
    store_bandwidth(device_snapshot(), bw)  # runs on this device record it from now on
    yield Finding(
        "memory", "bandwidth", "ok",
        f"{bw.gbs:.1f} GB/s ({bw.method}, {bw.buffer_bytes >> 20} MiB buffers); cached in "
        f"{cache_path()}",
        "runs on this device record it; their reports rate decode against it",
    )


def _python() -> Iterator[Finding]:
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    yield Finding(
        "python", "version", "ok" if ok else "fail",
        f"{platform.python_implementation()} {version} ({sys.executable})",
        None if ok else "install Python 3.10 or newer",
    )


def _packages() -> Iterator[Finding]:
    from edgeagent import __version__

    yield Finding("packages", "edgeagent", "ok", __version__)
    for dist, extra, purpose in PACKAGES:
        version = _version(dist)
        if version is not None:
            yield Finding("packages", dist, "ok", f"{version} ({purpose})")
        elif extra is None:
            yield Finding("packages", dist, "fail", f"not installed ({purpose})",
                          "pip install edgeagent (it is a core dependency)")
        else:
            yield Finding("packages", dist, "info", f"not installed ({purpose})",
                          f'pip install "edgeagent[{extra}]" to use it')


def _llama_cpp() -> Iterator[Finding]:
    try:
        import llama_cpp
    except Exception as exc:  # noqa: BLE001 - a broken build raises OSError, ImportError...
        yield Finding("llama.cpp", "import", "fail", f"llama_cpp does not import: {exc}",
                      LLAMA_BUILD_FIX)
        return
    info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
    features = build_features(info)
    yield Finding("llama.cpp", "build", "ok", info or "no system info")
    backends = [b for b in ("CUDA", "Metal", "Vulkan", "SYCL", "HIP", "BLAS") if b in info]
    offload = bool(llama_cpp.llama_supports_gpu_offload())
    yield Finding(
        "llama.cpp", "GPU offload", "ok" if offload else "info",
        f"available ({', '.join(backends)})" if offload
        else "not in this build: all layers run on the CPU",
        None if offload else "for a GPU: CMAKE_ARGS=\"-DGGML_CUDA=on\" (or -DGGML_METAL=on, "
        "-DGGML_VULKAN=on) pip install --no-cache-dir --force-reinstall llama-cpp-python; "
        "see packaging/",
    )
    cpu_flags = _cpu_flags()
    # AMX kernels compiled in on an AMX CPU: the native build that crashes on these parts.
    amx_built = any(features.get(k) for k in ("AMX_INT8", "AMX_BF16", "AMX"))
    if has_amx() and amx_built:
        yield Finding("llama.cpp", "AMX", "fail",
                      "built natively with AMX kernels on an AMX CPU: known to crash",
                      AMX_WARNING.split("; ", 1)[1])
    elif has_amx():
        yield Finding("llama.cpp", "AMX", "ok",
                      "CPU has AMX; this build leaves it out (portable build), which avoids "
                      "the native build's crash")
    if "avx2" in cpu_flags and features and not features.get("AVX2"):
        yield Finding("llama.cpp", "AVX2", "warn",
                      "the CPU has AVX2 but the build does not use it: decode will be slow",
                      LLAMA_BUILD_FIX)


def _llama_server() -> Iterator[Finding]:
    """The C++ llama-server (the MLPerf reference's server) built for this llama-cpp-python."""
    from edgeagent.engine import (
        BUILD_COMMAND,
        cached_versions,
        find_llama_server,
        installed_llama_cpp_version,
        llama_server_dir,
        server_version,
    )

    version = installed_llama_cpp_version()
    binary = find_llama_server(version)
    if binary is not None:
        yield Finding("llama.cpp", "llama-server", "ok",
                      f"{server_version(binary)} at {binary} (the llama.cpp of "
                      f"llama-cpp-python {version})")
        return
    others = [v for v in cached_versions() if v != version]
    where = llama_server_dir(version) if version else "~/.cache/edgeagent/llama-server/<version>"
    if others:
        yield Finding("llama.cpp", "llama-server", "warn",
                      f"built only for llama-cpp-python {', '.join(others)}, not the installed "
                      f"{version}: it serves another llama.cpp", f"{BUILD_COMMAND} (into {where})")
    else:
        yield Finding("llama.cpp", "llama-server", "info",
                      "no C++ llama-server built (needed only by tools/bench_server.py)",
                      f"{BUILD_COMMAND} (into {where})")


def _cpu() -> Iterator[Finding]:
    from edgeagent.meter import cpuinfo

    # the CPU only: the whole device snapshot would also ask git about the checkout
    yield Finding(
        "cpu", "model", "info",
        f"{cpuinfo()[0] or 'unknown'}, {psutil.cpu_count(logical=True)} logical cores, "
        f"{platform.machine()}",
    )
    flags = [f for f in FLAGS_OF_INTEREST if f in _cpu_flags()]
    yield Finding("cpu", "features", "info", " ".join(flags) or "none reported")


def _busy() -> Iterator[Finding]:
    """Processes busy right now, and the host's busy and steal shares, over one window."""
    yield from busy_findings(sample_host_load())


def busy_findings(load: HostLoad) -> list[Finding]:
    """The busy processes (warn, with the fix) or none (ok); the host's shares (info, or
    warn when the hypervisor steals)."""
    over = f"above {load.threshold:.0f}% of one CPU over {load.window_s:.1f} s"
    if load.busy:
        named = "; ".join(f"pid {p.pid} {p.name} `{p.cmdline}` {p.cpu_percent:.0f}%"
                          for p in load.busy)
        more = f"; and {load.more} more" if load.more else ""
        found = Finding("cpu", "busy processes", "warn",
                        f"{len(load.busy) + load.more} {over}: {named}{more}", BUSY_FIX)
    else:
        found = Finding("cpu", "busy processes", "ok",
                        f"none {over} (this doctor and its parent processes left out)")
    if load.busy_share is None:
        return [found, Finding("cpu", "host load", "info", str(load.null_reason))]
    detail = (f"{load.busy_share:.0%} of {load.cpus} CPUs busy over {load.window_s:.1f} s "
              "(every process, this doctor included)")
    if load.steal_share is None:
        return [found, Finding("cpu", "host load", "info", f"{detail}; {load.null_reason}")]
    detail += f", steal {load.steal_share:.1%} (CPU time the hypervisor gave other guests)"
    if load.steal_share > STEAL_WARN_SHARE:
        return [found, Finding("cpu", "host load", "warn", detail,
                               "timings on this VM depend on the host's other guests: prefer "
                               "a dedicated machine, or repeat runs and compare")]
    return [found, Finding("cpu", "host load", "ok", detail)]


def _cpu_flags() -> frozenset[str]:
    from edgeagent.meter import cpuinfo

    return cpuinfo()[1]


def _sqlite() -> Iterator[Finding]:
    loadable = hasattr(sqlite3.connect(":memory:"), "enable_load_extension")
    yield Finding(
        "sqlite", "stdlib sqlite3", "ok" if loadable else "info",
        f"SQLite {sqlite3.sqlite_version}; "
        + ("can load extensions" if loadable else "cannot load extensions (built without it)"),
        None if loadable else "retrieval uses sqlean.py instead: pip install "
        '"edgeagent[retrieval]"',
    )
    if importlib.util.find_spec("sqlean") is None:
        return
    try:
        import sqlean
        import sqlite_vec

        conn = sqlean.connect(":memory:")
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        version = conn.execute("select vec_version()").fetchone()[0]
        yield Finding("sqlite", "sqlite-vec", "ok", f"{version} loads into sqlean")
    except Exception as exc:  # noqa: BLE001 - report whatever the extension loader says
        yield Finding("sqlite", "sqlite-vec", "warn", f"does not load: {exc}",
                      'pip install --force-reinstall "edgeagent[retrieval]"')


def _models_and_resources() -> Iterator[Finding]:
    from edgeagent.models import DEFAULT_MODEL, list_models, models_dir

    rows = list_models()
    for row in rows:
        size = f"{row['size'] / 1e6:,.0f} MB" if row["size"] else "size unknown"
        if row["present"]:
            checked = {True: "sha256 verified", False: "sha256 MISMATCH", None: "not hashed yet"}
            status = "fail" if row["verified"] is False else "ok"
            fix = f"edgeagent models pull {row['name']} --force" if row["verified"] is False \
                else None
            yield Finding("models", row["name"], status,
                          f"present, {size}, {checked[row['verified']]}", fix)
        elif row["default"]:
            yield Finding("models", row["name"], "warn", f"absent ({size}); the default model",
                          f"edgeagent models pull {row['name']} (or `edgeagent run` pulls it)")
        else:
            yield Finding("models", row["name"], "info", f"absent ({size})",
                          f"edgeagent models pull {row['name']}")

    default = next((r for r in rows if r["name"] == DEFAULT_MODEL), None)
    need = int(default["size"] * 1.3) if default and default["size"] else None
    mem = psutil.virtual_memory()
    if need is not None:
        enough = mem.available >= need
        yield Finding(
            "memory", "available", "ok" if enough else "warn",
            f"{mem.available / 1e9:.1f} GB free of {mem.total / 1e9:.1f} GB; the default model "
            f"needs about {need / 1e9:.1f} GB (estimate: file size + 30% for KV cache and "
            "buffers)",
            None if enough else "close other programs or use a smaller model (--model)",
        )
    where = _existing_parent(models_dir())
    free = shutil.disk_usage(where).free
    missing = sum(r["size"] or 0 for r in rows if r["known"] and not r["present"])
    enough = free >= missing * 2  # the mirror's parts and the assembled file coexist briefly
    yield Finding(
        "disk", str(models_dir()), "ok" if enough or not missing else "warn",
        f"{free / 1e9:.1f} GB free; the absent known models need {missing / 1e9:.1f} GB "
        "(twice that while pulling)",
        None if enough or not missing else "free space or set EDGEAGENT_MODELS_DIR elsewhere",
    )


def _power(root: Path) -> Iterator[Finding]:
    from edgeagent.meter.sources import choose_total, discover_all

    discovery = discover_all(root)
    total = choose_total(discovery)
    for s in discovery.sources:
        mark = " (the total)" if total and s in total.sources else ""
        yield Finding("power", s.name, "ok", f"{s.scope}{mark}: {s.info.path or s.info.kind}")
    for u in discovery.unavailable:
        # Absent hardware is expected on most machines; a sensor that is there but cannot be
        # read (root-only RAPL, a failing read) is what the user can fix.
        fixable = any(w in u.reason for w in ("permission", "read failed", "unreadable"))
        yield Finding("power", u.name, "warn" if fixable else "info", u.reason, u.fix)
    if total is None:
        yield Finding("power", "total", "warn",
                      "no power source: runs record time but no energy",
                      "see the fixes above; `edgeagent sensors` shows live readings")
    else:
        yield Finding("power", "total", "ok", f"{total.label} (scope {total.scope})")


def _jetson(root: Path) -> Iterator[Finding]:
    from edgeagent.meter.sources import board_info

    model_file = root / "proc" / "device-tree" / "model"
    release = root / "etc" / "nv_tegra_release"
    if not release.exists() and "jetson" not in _read(model_file).lower():
        return
    info = board_info(root)
    why: dict[str, str] = info.get("unavailable", {})  # type: ignore[assignment]
    yield Finding("jetson", "model", "ok" if info["model"] else "warn",
                  str(info["model"] or why.get("model")))
    yield Finding("jetson", "L4T release", "ok" if info["l4t_release"] else "warn",
                  str(info["l4t_release"] or why.get("l4t_release")))
    if info["nvpmodel_id"] is not None:
        name = info["nvpmodel_name"] or "unnamed"
        yield Finding("jetson", "power mode", "ok",
                      f"nvpmodel {info['nvpmodel_id']} ({name}, from {info['nvpmodel_source']});"
                      " recorded with every run",
                      "fix the mode for comparable runs: sudo nvpmodel -m ID; sudo jetson_clocks")
    else:
        yield Finding("jetson", "power mode", "warn", str(why.get("nvpmodel")),
                      "sudo nvpmodel -q shows it; runs record it when readable")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _existing_parent(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""
