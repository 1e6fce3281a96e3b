"""Retrieval: chunking, the real embedding model, sqlite-vec KNN against numpy, hybrid ranking,
incremental updates, the content-keyed index cache, and the search_code tool."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from edgeagent.retrieval import unavailable_reason

pytestmark = pytest.mark.skipif(unavailable_reason() is not None, reason=str(unavailable_reason()))

PY_MAIN = textwrap.dedent('''\
    """Configuration loading for the widget service."""
    import json

    DEFAULT_PORT = 8080


    @staticmethod
    def parse_config_value(raw):
        """Turn a raw string from the config file into an int, float or string."""
        try:
            return int(raw)
        except ValueError:
            return raw


    class ConfigStore:
        """Holds the loaded settings and answers lookups."""

        def __init__(self, path):
            self.path = path

        def get(self, key):
            return json.load(open(self.path))[key]


    if __name__ == "__main__":
        print(ConfigStore("x.json").get("port"))
    ''')

PY_MATH = textwrap.dedent('''\
    def factorial(n):
        """n! computed iteratively."""
        result = 1
        for i in range(2, n + 1):
            result *= i
        return result


    def read_lines(path):
        """Open a text file and return its lines without newlines."""
        with open(path) as f:
            return f.read().splitlines()
    ''')


def write_repo(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "config.py").write_text(PY_MAIN)
    (root / "pkg" / "mathutil.py").write_text(PY_MATH)
    (root / "notes.md").write_text("".join(f"note line {i}\n" for i in range(1, 101)))
    (root / "broken.py").write_text("def oops(:\n    pass\n")
    (root / "logo.bin").write_bytes(b"\x00\x01binary")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@pytest.fixture(scope="module")
def embedder():
    from edgeagent.retrieval.embedder import Embedder
    from edgeagent.retrieval.registry import resolve_embedding_model

    return Embedder(resolve_embedding_model(), threads=1)


@pytest.fixture
def service(embedder, tmp_path: Path):
    from edgeagent.retrieval.service import RetrievalService

    return RetrievalService(cache_dir=tmp_path / "cache", embedder=embedder)


# -- chunker ----------------------------------------------------------------------------


def test_chunker_splits_python_by_top_level_defs_and_text_by_windows(tmp_path: Path) -> None:
    from edgeagent.retrieval.chunker import chunk_text, list_files, read_source

    root = write_repo(tmp_path / "repo")
    files = list_files(root)
    assert files == ["broken.py", "logo.bin", "notes.md", "pkg/config.py", "pkg/mathutil.py"]
    assert read_source(root, "logo.bin").text is None  # binary: tracked, never chunked

    chunks = chunk_text("pkg/config.py", PY_MAIN)
    assert [(c.id, c.kind) for c in chunks] == [
        ("pkg/config.py:1-6", "module"),  # docstring, import, constant
        ("pkg/config.py:7-13", "def"),  # the decorator belongs to its function
        ("pkg/config.py:16-23", "class"),
        ("pkg/config.py:26-27", "module"),  # trailing top-level code
    ]
    assert chunks[1].text.startswith("@staticmethod\ndef parse_config_value(raw):")
    lines = PY_MAIN.splitlines()
    for c in chunks:  # a chunk's text is exactly its line range
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])

    windows = chunk_text("notes.md", (root / "notes.md").read_text())
    assert [(c.start_line, c.end_line) for c in windows] == [(1, 40), (31, 70), (61, 100)]
    assert {c.kind for c in windows} == {"window"}
    # invalid Python is still searchable, as line windows
    assert [(c.id, c.kind) for c in chunk_text("broken.py", "def oops(:\n    pass\n")] == [
        ("broken.py:1-2", "window")
    ]


# -- embeddings (the real all-MiniLM-L6-v2 int8 model) ------------------------------------


@pytest.mark.slow
def test_embeddings_are_deterministic_unit_vectors(embedder) -> None:
    texts = ["def add(a, b): return a + b", "read the configuration file", "x" * 5000]
    first = embedder.embed(texts)
    again = embedder.embed(list(reversed(texts)))[::-1]  # other batch order and padding
    alone = np.stack([embedder.embed_one(t) for t in texts])
    assert first.shape == (3, 384) and first.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(first, embedder.embed(texts))  # bit-identical on a rerun
    np.testing.assert_allclose(first, again, atol=1e-5)
    np.testing.assert_allclose(first, alone, atol=1e-4)  # padding does not leak into the mean
    # truncation at the model's max length: a 5000-char text still embeds
    assert len(embedder.tokenize(["x " * 2000])["input_ids"][0]) == embedder.max_length


@pytest.mark.slow
def test_related_texts_are_closer_than_unrelated(embedder) -> None:
    query, related, unrelated = embedder.embed([
        "open a file and return its contents",
        "def read_file(path):\n    with open(path) as f:\n        return f.read()",
        "def factorial(n):\n    return 1 if n < 2 else n * factorial(n - 1)",
    ])
    assert float(query @ related) > float(query @ unrelated) + 0.1
    a, b, c = embedder.embed(["the cat sat on the mat", "a kitten is sitting on a rug",
                              "quarterly tax filing deadline"])
    assert float(a @ b) > float(a @ c) + 0.2


# -- index ----------------------------------------------------------------------------


def _random_index(tmp_path: Path, n: int, dims: int = 384, seed: int = 0):
    from edgeagent.retrieval.chunker import Chunk
    from edgeagent.retrieval.index import Index

    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dims)).astype(np.float32)
    index = Index(tmp_path / "knn.sqlite", dims)
    chunks = [Chunk(f"f{i}.txt", 1, 1, f"doc {i}", "window") for i in range(n)]
    ids = index.add_chunks(chunks, vectors)
    return index, vectors, ids, rng


def test_knn_equals_brute_force_numpy_top_k(tmp_path: Path) -> None:
    index, vectors, ids, rng = _random_index(tmp_path, 300)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for _ in range(5):
        q = rng.standard_normal(384).astype(np.float32)
        cos = unit @ (q / np.linalg.norm(q))
        expected = [ids[i] for i in np.argsort(-cos)[:10]]
        got = index.vector_ranked(q, 10)
        assert [cid for cid, _ in got] == expected
        np.testing.assert_allclose([d for _, d in got], 1.0 - np.sort(cos)[::-1][:10], atol=1e-5)
    index.close()


def _same_neighbours(index, queries, k: int) -> None:
    """The matrix KNN and vec0's scan: the same ids in the same order, the same distances."""
    for q in queries:
        got, ref = index.vector_ranked(q, k), index.vector_ranked_vec0(q, k)
        assert [cid for cid, _ in got] == [cid for cid, _ in ref]
        np.testing.assert_allclose([d for _, d in got], [d for _, d in ref], atol=1e-5)


def test_matrix_knn_returns_the_same_neighbours_as_vec0_through_edits(tmp_path: Path) -> None:
    from edgeagent.retrieval.chunker import Chunk
    from edgeagent.retrieval.index import Index

    index, vectors, ids, rng = _random_index(tmp_path, 400)
    assert index.knn == "matrix"
    queries = [rng.standard_normal(384).astype(np.float32) for _ in range(8)]
    queries.append(vectors[17])  # a stored vector: its own chunk first, at distance ~0
    _same_neighbours(index, queries, 10)
    assert index.vector_ranked(vectors[17], 1)[0][0] == ids[17]
    _same_neighbours(index, queries, 400)  # k = every vector: the whole order agrees
    _same_neighbours(index, queries, 1000)  # k beyond the count: all of them, once

    # re-index files as the agent edits them: deletes, replacements, additions
    for i in range(0, 400, 3):
        index.remove_file(f"f{i}.txt")
    fresh = rng.standard_normal((30, 384)).astype(np.float32)
    index.put_file("f1.txt", "sha", 1, 1, [Chunk("f1.txt", 1, 1, "new", "window")], fresh[:1])
    index.add_chunks([Chunk(f"g{i}.txt", 1, 1, f"g {i}", "window") for i in range(29)],
                     fresh[1:])
    queries += list(fresh[:3])
    _same_neighbours(index, queries, 10)
    _same_neighbours(index, queries, 50)
    alive = {cid for cid, _ in index.vector_ranked(queries[0], 4096)}
    assert alive == {cid for cid, _ in index.vector_ranked_vec0(queries[0], 4096)}
    assert len(alive) == index.count()
    index.close()

    # reopened: the matrix is rebuilt from the vec0 table and still agrees
    reopened = Index(tmp_path / "knn.sqlite", 384)
    _same_neighbours(reopened, queries, 10)
    reopened.close()


def _same_text_ranks(index, queries, k: int) -> None:
    """In-memory BM25 and FTS5's bm25(): the same ids in the same order, the same scores."""
    for q in queries:
        got, ref = index.text_ranked(q, k), index.text_ranked_fts5(q, k)
        assert [cid for cid, _ in got] == [cid for cid, _ in ref], q
        np.testing.assert_allclose([s for _, s in got], [s for _, s in ref], rtol=1e-12)


def test_memory_bm25_ranks_as_fts5_on_real_code_through_edits(tmp_path: Path) -> None:
    """Chunks of the project's own source (identifiers, snake_case, prose, unicode), queried
    with words that are common, rare and absent, before and after files are re-indexed."""
    from edgeagent.retrieval.chunker import chunk_text
    from edgeagent.retrieval.index import Index

    root = Path(__file__).resolve().parents[2] / "edgeagent"
    files = sorted(root.rglob("*.py"))[:60]
    index = Index(tmp_path / "bm25.sqlite", 4)
    assert index.text == "memory"
    zero = np.zeros(4, dtype=np.float32)
    for f in files:
        rel = str(f.relative_to(root))
        chunks = chunk_text(rel, f.read_text())
        index.put_file(rel, "sha", 1, 1, chunks, np.stack([zero] * len(chunks)) if chunks
                       else None)
    queries = ["parse the config value", "def __init__ self", "KV cache bytes per step",
               "energy_per_task joules", "UserError exit code 2", "numpy argpartition",
               "nothing_matches_this_zzz", "return", "fts5 bm25 rank", "café naïve"]
    _same_text_ranks(index, queries, 10)
    _same_text_ranks(index, queries, 50)
    _same_text_ranks(index, queries, 100_000)  # every match: the whole order agrees

    for f in files[::4]:  # the agent edits files: removed, re-indexed with other text
        index.remove_file(str(f.relative_to(root)))
    rel = str(files[1].relative_to(root))
    chunks = chunk_text(rel, "def parse_config_value(raw):\n    return raw  # café\n")
    index.put_file(rel, "sha2", 2, 2, chunks, np.stack([zero] * len(chunks)))
    _same_text_ranks(index, queries, 10)
    _same_text_ranks(index, queries, 100_000)
    index.close()

    reopened = Index(tmp_path / "bm25.sqlite", 4)  # rebuilt from the chunks table
    _same_text_ranks(reopened, queries, 20)
    reopened.close()


@pytest.mark.slow
def test_retriever_knn_backends_rank_alike_after_an_edit(embedder, tmp_path: Path) -> None:
    from edgeagent.retrieval.service import RetrievalService

    query = "read the lines of a text file"
    results = {}
    for knn in ("matrix", "vec0"):  # each on its own copy of the repository, edited alike
        root = write_repo(tmp_path / knn)
        svc = RetrievalService(cache_dir=tmp_path / "cache", embedder=embedder, knn=knn)
        retriever = svc.retriever(root)
        seen = [[(h.chunk.id, h.vector_rank) for h in retriever.search(query, 10, "vector").hits]]
        with open(root / "pkg" / "mathutil.py", "a") as f:
            f.write("\n\ndef read_text_lines(path):\n    return open(path).read().split()\n")
        (root / "notes.md").unlink()
        after = retriever.search(query, 10, "hybrid")
        assert after.cost.files_reindexed == 2
        seen.append([(h.chunk.id, h.vector_rank, h.text_rank) for h in after.hits])
        results[knn] = seen
        retriever.close()
    assert results["matrix"] == results["vec0"]
    assert "pkg/mathutil.py:15-16" in [cid for cid, *_ in results["matrix"][1]]
    assert all(not cid.startswith("notes.md") for cid, *_ in results["matrix"][1])


@pytest.mark.slow
def test_hybrid_is_reciprocal_rank_fusion_of_vector_and_bm25(service, tmp_path: Path) -> None:
    from edgeagent.retrieval.index import RRF_K

    retriever = service.retriever(write_repo(tmp_path / "repo"))
    retriever.open()
    index = retriever.index
    query = "parse_config_value raw string"
    q = service.embedder.embed_one(query)
    vec = {h.chunk.id: r for r, h in enumerate(index.search(q, query, 50, "vector"), 1)}
    txt = {h.chunk.id: r for r, h in enumerate(index.search(q, query, 50, "text"), 1)}
    hybrid = index.search(q, query, 5, "hybrid")
    assert txt["pkg/config.py:7-13"] == 1  # BM25 finds the identifier
    expected = {cid: sum(1 / (RRF_K + ranks[cid]) for ranks in (vec, txt) if cid in ranks)
                for cid in set(vec) | set(txt)}
    assert [h.chunk.id for h in hybrid] == sorted(expected, key=lambda c: -expected[c])[:5]
    for h in hybrid:
        assert h.score == pytest.approx(expected[h.chunk.id])
        assert (h.vector_rank, h.text_rank) == (vec.get(h.chunk.id), txt.get(h.chunk.id))
    assert hybrid[0].chunk.id == "pkg/config.py:7-13"
    retriever.close()


@pytest.mark.slow
def test_incremental_update_after_an_edit(service, tmp_path: Path) -> None:
    root = write_repo(tmp_path / "repo")
    retriever = service.retriever(root)
    first = retriever.search("frobnicate the widgets", 3)
    assert first.cost.index_cached is False and first.cost.files_reindexed == 0
    chunks_before = first.cost.chunks

    with open(root / "pkg" / "mathutil.py", "a") as f:
        f.write("\n\ndef frobnicate_widgets(widgets):\n    return sorted(widgets)\n")
    after = retriever.search("frobnicate_widgets", 3)
    assert after.cost.files_reindexed == 1 and after.cost.index_cached is None
    assert after.cost.chunks == chunks_before + 1
    assert after.hits[0].chunk.id == "pkg/mathutil.py:15-16"

    (root / "notes.md").unlink()
    gone = retriever.search("note line", 10)
    assert gone.cost.files_reindexed == 1
    assert all(h.chunk.path != "notes.md" for h in gone.hits)
    unchanged = retriever.search("note line", 10)
    assert unchanged.cost.files_reindexed == 0
    retriever.close()


@pytest.mark.slow
def test_index_cache_hit_and_edits_stay_out_of_the_cache(service, tmp_path: Path) -> None:
    a = write_repo(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)  # same content elsewhere: a workspace copy of the same task

    first = service.retriever(a)
    assert first.open() is False  # built
    cache_file = first.cache_path
    (a / "pkg" / "config.py").write_text("def frobnicate_widgets():\n    pass\n")
    assert first.search("frobnicate_widgets", 1).cost.files_reindexed == 1
    first.close()

    second = service.retriever(b)
    result = second.search("frobnicate_widgets", 3)
    assert result.cost.index_cached is True and second.cache_path == cache_file
    assert result.cost.files_reindexed == 0
    assert all("frobnicate" not in h.chunk.text for h in result.hits)  # the edit stayed in a
    assert len(list(cache_file.parent.glob("*.sqlite"))) == 1
    second.close()


@pytest.mark.slow
def test_reranker_interface_times_its_stage(embedder, tmp_path: Path) -> None:
    from edgeagent.retrieval.service import RetrievalService

    class Reverse:
        name = "reverse"

        def rerank(self, query, hits):
            return list(reversed(hits))

    svc = RetrievalService(cache_dir=tmp_path / "c", embedder=embedder, reranker=Reverse())
    plain = RetrievalService(cache_dir=tmp_path / "c", embedder=embedder)
    root = write_repo(tmp_path / "repo")
    a, b = plain.retriever(root), svc.retriever(root)
    base, reranked = a.search("configuration", 4), b.search("configuration", 4)
    assert base.cost.rerank_ms is None and reranked.cost.rerank_ms >= 0
    assert [h.chunk.id for h in reranked.hits] == [h.chunk.id for h in reversed(base.hits)]
    a.close()
    b.close()


# -- the tool -------------------------------------------------------------------------


@pytest.mark.slow
def test_search_code_tool(service, tmp_path: Path) -> None:
    from edgeagent.sandbox.process import ProcessLimits
    from edgeagent.sandbox.tools import TOOL_SPECS, Toolbox
    from edgeagent.sandbox.workspace import Workspace

    with Workspace.create(write_repo(tmp_path / "repo")) as ws:
        retriever = service.retriever(ws.root)
        box = Toolbox(ws, "true", ProcessLimits(timeout_s=5), retriever=retriever)
        assert "search_code" in [s.name for s in box.specs]
        result = box.call("search_code", {"query": "read lines of a text file", "k": 2})
        assert not result.error, result.output
        assert result.output.splitlines()[0] == "2 results for 'read lines of a text file', " \
            "best first:"
        assert "pkg/mathutil.py:9-12" in result.output
        assert "  9| def read_lines(path):" in result.output
        assert result.retrieval is not None and result.retrieval.embed_ms > 0
        assert box.call("search_code", {"query": "x", "k": 99}).output == \
            "k must be between 1 and 20, got 99"
        assert box.call("read_file", {"path": "notes.md"}).retrieval is None
        retriever.close()

        plain = Toolbox(ws, "true", ProcessLimits(timeout_s=5))
        assert plain.specs == TOOL_SPECS
        off = plain.call("search_code", {"query": "x"})
        assert off.error and off.output == (
            "search_code is not available: retrieval is not enabled for this run; use grep "
            "instead"
        )
