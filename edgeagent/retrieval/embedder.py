"""Text -> L2-normalised sentence vectors with onnxruntime and `tokenizers` (no PyTorch).

Sentence-transformers' recipe: the transformer's last hidden state, mean-pooled over the
attention mask, then L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .registry import EmbeddingSpec, ResolvedEmbedding

DEFAULT_BATCH = 16


def session_options(threads: int | None):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    # 0 lets onnxruntime choose (one thread per physical core)
    opts.intra_op_num_threads = threads or 0
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.log_severity_level = 3  # the int8 graph warns about unused initialisers
    return opts


class Embedder:
    def __init__(
        self,
        model: ResolvedEmbedding,
        *,
        threads: int | None = None,
        batch_size: int = DEFAULT_BATCH,
        max_length: int | None = None,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.spec: EmbeddingSpec = model.spec
        self.name = model.name
        self.dims = model.spec.dims
        self.batch_size = batch_size
        self.max_length = max_length or model.spec.max_length
        self.threads = threads
        self.session = ort.InferenceSession(
            str(model.onnx_path), session_options(threads), providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(Path(model.tokenizer_path)))
        # the shipped tokenizer.json pads and truncates to a fixed 128: pad per batch instead
        # (less work on short texts) and truncate at the model's own limit
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_length)

    def tokenize(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """One batch's model inputs, padded to the longest text in it."""
        encodings = self.tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            ids[row, :len(enc.ids)] = enc.ids
            mask[row, :len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return feeds

    def batches(self, texts: Sequence[str]) -> list[tuple[list[int], dict[str, np.ndarray]]]:
        """Texts grouped by similar length (little padding), with their original positions."""
        lengths = [len(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: lengths[i])
        out = []
        for at in range(0, len(order), self.batch_size):
            idx = order[at:at + self.batch_size]
            out.append((idx, self.tokenize([texts[i] for i in idx])))
        return out

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        (hidden,) = self.session.run([self.spec.output], feeds)
        return pool(hidden, feeds["attention_mask"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """[len(texts), dims] float32, each row of unit length."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for idx, feeds in self.batches(texts):
            out[idx] = self.run(feeds)
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.run(self.tokenize([text]))[0]


def pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over the real tokens, then L2-normalised."""
    weights = mask[..., None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    mean = summed / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(mean, axis=1, keepdims=True)
    return (mean / np.clip(norms, 1e-12, None)).astype(np.float32)
