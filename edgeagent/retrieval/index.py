"""The index: one SQLite file holding chunks, a sqlite-vec `vec0` table (cosine) and an FTS5
table (BM25), ranked separately and fused by reciprocal rank fusion.

Exact KNN runs over an in-memory float32 matrix of the unit-normalised vectors (one BLAS
matrix-vector product and a partial sort), read from the `vec0` table the first time a vector
query needs it and kept in step with every insert and delete after that. vec0's own exact scan
costs about ten times a numpy product at 10k x 384 (issue 23); the table stays the durable
copy and the reference (`knn="vec0"` queries it, for tests and benches). The matrix costs
4 x dims bytes per chunk (15 MB at 10k x 384).

BM25 likewise runs in memory (bm25.py, scored as FTS5 scores), read from the chunks table the
first time a text query needs it; the FTS5 table stays the durable copy and the reference
(`text="fts5"`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .bm25 import BM25Index
from .chunker import Chunk

KNN_BACKENDS = ("matrix", "vec0")  # the in-memory matrix (default), sqlite-vec's scan
TEXT_BACKENDS = ("memory", "fts5")  # in-memory BM25 (default), FTS5's own bm25()
RRF_K = 60  # the constant of Cormack et al.; damps the weight of the very top ranks
CANDIDATES = 50  # per ranker, before fusion


def connect(path: Path | str) -> Any:
    """A connection that has sqlite-vec loaded: the stdlib module where it can load
    extensions, else sqlean (a drop-in build that can)."""
    import sqlite3

    import sqlite_vec

    conn = sqlite3.connect(str(path))
    if not hasattr(conn, "enable_load_extension"):
        conn.close()
        import sqlean

        conn = sqlean.connect(str(path))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn


@dataclass(frozen=True)
class Hit:
    chunk: Chunk
    score: float  # fused RRF score (hybrid), cosine similarity (vector) or -bm25 (text)
    vector_rank: int | None  # 1-based rank in each list; None when absent from it
    text_rank: int | None


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=np.float32).ravel().tobytes()


class VectorMatrix:
    """Chunk ids and their unit vectors in memory; appends are batched until the next query.

    Rows are normalised once, so cosine distance is 1 - row . unit(query), the quantity vec0
    computes; a zero vector keeps a zero row (distance 1, as far as anything can be).
    """

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.ids = np.empty(0, dtype=np.int64)
        self.rows = np.empty((0, dims), dtype=np.float32)
        self._pending: list[tuple[int, np.ndarray]] = []

    def __len__(self) -> int:
        return len(self.ids) + len(self._pending)

    def add(self, rowid: int, vector: np.ndarray) -> None:
        self._pending.append((rowid, np.asarray(vector, dtype=np.float32).ravel()))

    def remove(self, rowids: Sequence[int]) -> None:
        if not rowids:
            return
        gone = set(rowids)
        self._pending = [(i, v) for i, v in self._pending if i not in gone]
        keep = ~np.isin(self.ids, np.fromiter(gone, dtype=np.int64, count=len(gone)))
        if not keep.all():
            self.ids, self.rows = self.ids[keep], self.rows[keep]

    def _flush(self) -> None:
        if not self._pending:
            return
        ids = np.fromiter((i for i, _ in self._pending), dtype=np.int64, count=len(self._pending))
        rows = _unit_rows(np.stack([v for _, v in self._pending]))
        self._pending = []
        self.ids = np.concatenate([self.ids, ids])
        self.rows = np.concatenate([self.rows, rows]) if len(self.rows) else rows

    def load(self, ids: np.ndarray, rows: np.ndarray) -> None:
        self.ids = ids.astype(np.int64, copy=False)
        self.rows = _unit_rows(rows)
        self._pending = []

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine distance), nearest first; equal distances by id."""
        self._flush()
        n = len(self.ids)
        if n == 0 or k <= 0:
            return []
        q = np.asarray(vector, dtype=np.float32).ravel()
        norm = float(np.linalg.norm(q))
        if norm > 0:
            q = q / norm
        dist = 1.0 - self.rows @ q
        if k < n:
            top = np.argpartition(dist, k - 1)[:k]
        else:
            top = np.arange(n)
        order = top[np.lexsort((self.ids[top], dist[top]))]
        return list(zip(self.ids[order].tolist(), dist[order].tolist(), strict=True))


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.ascontiguousarray(rows / np.where(norms > 0, norms, 1.0), dtype=np.float32)


_WORD = re.compile(r"[A-Za-z0-9]+")


def query_terms(text: str) -> list[str]:
    """Free text -> its distinct lower-case words; snake_case and camelCase identifiers also
    give their parts."""
    words: list[str] = []
    for raw in _WORD.findall(text):
        parts = re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", raw) or [raw]
        for w in [raw, *parts]:
            w = w.lower()
            if w not in words:
                words.append(w)
    return words


def fts_query(text: str) -> str | None:
    """Free text -> an FTS5 OR query of its words (quoted: no FTS syntax can leak in)."""
    return " OR ".join(f'"{w}"' for w in query_terms(text)) or None


class Index:
    def __init__(
        self, path: Path | str, dims: int, *, knn: str = "matrix", text: str = "memory"
    ) -> None:
        if knn not in KNN_BACKENDS:
            raise ValueError(f"knn must be one of {KNN_BACKENDS}, not {knn!r}")
        if text not in TEXT_BACKENDS:
            raise ValueError(f"text must be one of {TEXT_BACKENDS}, not {text!r}")
        self.path = Path(path)
        self.dims = dims
        self.knn = knn
        self.text = text
        self._matrix: VectorMatrix | None = None  # read from vec0 on first use
        self._bm25: BM25Index | None = None  # read from the chunks table on first use
        self.conn = connect(self.path)
        self.conn.executescript(f"""
            PRAGMA journal_mode = MEMORY;
            PRAGMA synchronous = OFF;
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE IF NOT EXISTS files (
                path TEXT PRIMARY KEY, sha256 TEXT NOT NULL, size INTEGER, mtime_ns INTEGER);
            CREATE TABLE IF NOT EXISTS chunks (
                id INTEGER PRIMARY KEY, path TEXT NOT NULL, start_line INTEGER,
                end_line INTEGER, kind TEXT, text TEXT);
            CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
            CREATE VIRTUAL TABLE IF NOT EXISTS vec_chunks
                USING vec0(embedding float[{dims}] distance_metric=cosine);
            CREATE VIRTUAL TABLE IF NOT EXISTS fts_chunks USING fts5(path, text);
        """)

    def close(self) -> None:
        self.conn.close()
        self._matrix = None
        self._bm25 = None

    def load_text(self) -> BM25Index:
        """The in-memory BM25 index, built from the chunks table once (Retriever.open does it
        up front, as it does the vectors)."""
        if self._bm25 is None:
            bm25 = BM25Index()
            for rowid, path, text in self.conn.execute("SELECT id, path, text FROM chunks"):
                bm25.add(rowid, path, text)
            self._bm25 = bm25
        return self._bm25

    def load_vectors(self) -> VectorMatrix:
        """The in-memory matrix, read from the vec0 table once (Retriever.open does it up
        front so the first query does not pay for it)."""
        if self._matrix is None:
            matrix = VectorMatrix(self.dims)
            rows = self.conn.execute("SELECT rowid, embedding FROM vec_chunks").fetchall()
            if rows:
                ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
                data = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
                matrix.load(ids, data.reshape(len(rows), self.dims))
            self._matrix = matrix
        return self._matrix

    # -- metadata --

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))
        self.conn.commit()

    def files(self) -> dict[str, tuple[str, int, int]]:
        rows = self.conn.execute("SELECT path, sha256, size, mtime_ns FROM files")
        return {p: (sha, size, mtime) for p, sha, size, mtime in rows}

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (size, mtime_ns, path)
        )

    def count(self) -> int:
        return self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]

    # -- writing --

    def put_file(
        self, path: str, sha256: str, size: int, mtime_ns: int,
        chunks: Sequence[Chunk], vectors: np.ndarray | None,
    ) -> None:
        """Replace everything indexed for path with these chunks and their vectors."""
        self.remove_file(path, commit=False)
        self.conn.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?)", (path, sha256, size, mtime_ns)
        )
        self.add_chunks(chunks, vectors, commit=False)
        self.conn.commit()

    def add_chunks(
        self, chunks: Sequence[Chunk], vectors: np.ndarray | None, *, commit: bool = True
    ) -> list[int]:
        ids = []
        for i, c in enumerate(chunks):
            cur = self.conn.execute(
                "INSERT INTO chunks (path, start_line, end_line, kind, text) VALUES (?,?,?,?,?)",
                (c.path, c.start_line, c.end_line, c.kind, c.text),
            )
            rowid = cur.lastrowid
            ids.append(rowid)
            assert vectors is not None
            self.conn.execute(
                "INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)",
                (rowid, _blob(vectors[i])),
            )
            if self._matrix is not None:
                self._matrix.add(rowid, vectors[i])
            if self._bm25 is not None:
                self._bm25.add(rowid, c.path, c.text)
            self.conn.execute(
                "INSERT INTO fts_chunks (rowid, path, text) VALUES (?, ?, ?)",
                (rowid, c.path, c.text),
            )
        if commit:
            self.conn.commit()
        return ids

    def remove_file(self, path: str, *, commit: bool = True) -> None:
        ids = [r[0] for r in self.conn.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
        for rowid in ids:
            self.conn.execute("DELETE FROM vec_chunks WHERE rowid = ?", (rowid,))
            self.conn.execute("DELETE FROM fts_chunks WHERE rowid = ?", (rowid,))
        self.conn.execute("DELETE FROM chunks WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM files WHERE path = ?", (path,))
        if self._matrix is not None:
            self._matrix.remove(ids)
        if self._bm25 is not None:
            self._bm25.remove(ids)
        if commit:
            self.conn.commit()

    # -- reading --

    def chunks_by_id(self, ids: Iterable[int]) -> dict[int, Chunk]:
        ids = list(ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.conn.execute(
            f"SELECT id, path, start_line, end_line, text, kind FROM chunks WHERE id IN ({marks})",
            ids,
        )
        return {r[0]: Chunk(r[1], r[2], r[3], r[4], r[5]) for r in rows}

    def vector_ranked(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """(chunk id, cosine distance), nearest first: exact, over every current vector."""
        if self.knn == "matrix":
            return self.load_vectors().nearest(vector, k)
        return self.vector_ranked_vec0(vector, k)

    def vector_ranked_vec0(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The same ranking from sqlite-vec's exact scan (the reference the matrix must match)."""
        rows = self.conn.execute(
            "SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ? "
            "ORDER BY distance",
            (_blob(vector), k),
        )
        return [(r[0], r[1]) for r in rows]

    def text_ranked(self, query: str, k: int) -> list[tuple[int, float]]:
        """(chunk id, bm25) best first; FTS5's bm25() is lower-is-better."""
        if self.text == "memory":
            return self.load_text().ranked(query_terms(query), k)
        return self.text_ranked_fts5(query, k)

    def text_ranked_fts5(self, query: str, k: int) -> list[tuple[int, float]]:
        """The same ranking from FTS5 (the reference the in-memory index must match); equal
        scores by id, as the in-memory index orders them."""
        match = fts_query(query)
        if match is None:
            return []
        rows = self.conn.execute(
            "SELECT rowid, bm25(fts_chunks) AS s FROM fts_chunks WHERE fts_chunks MATCH ? "
            "ORDER BY s, rowid LIMIT ?",
            (match, k),
        )
        return [(r[0], r[1]) for r in rows]

    def search(
        self, vector: np.ndarray, query: str, k: int, mode: str = "hybrid",
        candidates: int = CANDIDATES,
    ) -> list[Hit]:
        """Top k chunks: 'vector' (cosine), 'text' (BM25) or 'hybrid' (RRF of both)."""
        pool = max(k, candidates)
        vec = self.vector_ranked(vector, pool) if mode in ("vector", "hybrid") else []
        txt = self.text_ranked(query, pool) if mode in ("text", "hybrid") else []
        vrank = {cid: r for r, (cid, _) in enumerate(vec, 1)}
        trank = {cid: r for r, (cid, _) in enumerate(txt, 1)}
        if mode == "vector":
            scored = [(cid, 1.0 - d) for cid, d in vec[:k]]
        elif mode == "text":
            scored = [(cid, -s) for cid, s in txt[:k]]
        else:
            fused: dict[int, float] = {}
            for ranks in (vrank, trank):
                for cid, r in ranks.items():
                    fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + r)
            # ties (same ranks in both lists) go to the better vector rank, then the id
            scored = sorted(
                fused.items(), key=lambda kv: (-kv[1], vrank.get(kv[0], 1 << 30), kv[0])
            )[:k]
        chunks = self.chunks_by_id(cid for cid, _ in scored)
        return [
            Hit(chunks[cid], score, vrank.get(cid), trank.get(cid))
            for cid, score in scored if cid in chunks
        ]
