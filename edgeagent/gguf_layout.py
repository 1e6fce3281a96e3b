"""A GGUF file's layout checked before llama.cpp is given it: header, metadata, tensor infos
and the size of the tensor data they describe.

llama.cpp reports a file cut short or garbled only as "failed to load model", and some
malformed files make it print to stderr or abort the process. Reading the layout ourselves
says where the file ends and what it should hold, so a copy cut short by an interrupted
download ends in one clear line instead (models.py turns GgufLayoutError into a ModelError).
The format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (versions 2 and 3).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

MAGIC = b"GGUF"
VERSIONS = (2, 3)  # llama.cpp no longer reads version 1
MAX_DIMS = 4  # GGML_MAX_DIMS
DEFAULT_ALIGNMENT = 32
_STRING, _ARRAY = 8, 9
# metadata value type -> bytes (string and array are read apart)
_SCALAR_BYTES = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
# ggml tensor type -> (values per block, bytes per block), as gguf-py's GGML_QUANT_SIZES;
# a type missing here (newer than this table) is not size-checked: llama.cpp judges it
GGML_BLOCKS = {
    0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
    9: (32, 40), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176),
    14: (256, 210), 15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98),
    19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82), 23: (256, 136), 24: (1, 1),
    25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
    34: (256, 54), 35: (256, 66), 39: (32, 17), 40: (64, 36), 41: (128, 18),
}


class GgufLayoutError(Exception):
    """The file is not a whole GGUF: `cut` says whether it ends too soon (a partial copy)
    rather than holding bytes no GGUF writer makes."""

    def __init__(self, message: str, cut: bool) -> None:
        super().__init__(message)
        self.cut = cut


@dataclass(frozen=True)
class GgufLayout:
    version: int
    tensors: int
    metadata_keys: int
    data_offset: int  # where the tensor data starts
    data_end: int  # where the last tensor's data ends (<= size)
    size: int


class _Cursor:
    """Reads little-endian values from the mapped file; past its end is a GgufLayoutError."""

    def __init__(self, data: mmap.mmap | bytes, size: int) -> None:
        self.data, self.size, self.pos = data, size, 0

    def need(self, n: int, what: str) -> None:
        if n > self.size - self.pos:
            raise GgufLayoutError(f"it ends at byte {self.size} inside {what}", cut=True)

    def unpack(self, fmt: str, what: str) -> int:
        n = struct.calcsize(fmt)
        self.need(n, what)
        (value,) = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += n
        return value

    def string(self, what: str) -> str:
        n = self.unpack("<Q", what)
        self.need(n, what)
        text = bytes(self.data[self.pos:self.pos + n]).decode("utf-8", errors="replace")
        self.pos += n
        return text

    def skip_value(self, kind: int, what: str) -> None:
        if kind == _STRING:
            n = self.unpack("<Q", what)
            self.need(n, what)
            self.pos += n
        elif kind == _ARRAY:
            inner = self.unpack("<I", what)
            count = self.unpack("<Q", what)
            if inner in _SCALAR_BYTES:
                self.need(count * _SCALAR_BYTES[inner], what)
                self.pos += count * _SCALAR_BYTES[inner]
            elif inner == _STRING:
                for _ in range(count):  # each element is a length and its bytes
                    self.skip_value(_STRING, what)
            else:
                raise GgufLayoutError(f"{what} is an array of unknown type {inner}", cut=False)
        elif kind in _SCALAR_BYTES:
            self.need(_SCALAR_BYTES[kind], what)
            self.pos += _SCALAR_BYTES[kind]
        else:
            raise GgufLayoutError(f"{what} has unknown value type {kind}", cut=False)


def _header(cur: _Cursor) -> tuple[int, int, int]:
    cur.need(4, "the GGUF magic")
    if bytes(cur.data[:4]) != MAGIC:
        raise GgufLayoutError("it does not start with the GGUF magic bytes", cut=False)
    cur.pos = 4
    version = cur.unpack("<I", "the header")
    if version not in VERSIONS:
        raise GgufLayoutError(f"unsupported GGUF version {version} (llama.cpp reads "
                              f"{' and '.join(map(str, VERSIONS))})", cut=False)
    return version, cur.unpack("<Q", "the header"), cur.unpack("<Q", "the header")


def _metadata(cur: _Cursor, count: int) -> int:
    """Skips the metadata; the tensor data's alignment it sets (general.alignment)."""
    alignment = DEFAULT_ALIGNMENT
    for i in range(count):
        key = cur.string(f"metadata key {i + 1} of {count}")
        kind = cur.unpack("<I", f"metadata {key!r}")
        if key == "general.alignment" and kind == 4:
            alignment = cur.unpack("<I", f"metadata {key!r}")
        else:
            cur.skip_value(kind, f"metadata {key!r}")
    if alignment <= 0 or alignment & (alignment - 1):
        raise GgufLayoutError(f"general.alignment {alignment} is not a power of two", cut=False)
    return alignment


def _tensor_ends(cur: _Cursor, count: int) -> list[tuple[str, int]]:
    """Each tensor's name and where its data ends, relative to the data section."""
    ends = []
    for i in range(count):
        name = cur.string(f"tensor info {i + 1} of {count}")
        dims = cur.unpack("<I", f"tensor info {name!r}")
        if dims > MAX_DIMS:
            raise GgufLayoutError(f"tensor {name!r} has {dims} dimensions (at most "
                                  f"{MAX_DIMS})", cut=False)
        values = 1
        for _ in range(dims):
            values *= cur.unpack("<Q", f"tensor info {name!r}")
        kind = cur.unpack("<I", f"tensor info {name!r}")
        offset = cur.unpack("<Q", f"tensor info {name!r}")
        block = GGML_BLOCKS.get(kind)
        ends.append((name, offset + (values // block[0] * block[1] if block else 0)))
    return ends


def read_layout(path: Path) -> GgufLayout:
    """The layout of the GGUF at `path`; GgufLayoutError when it is cut short or garbled.
    Reads only the header and metadata (the tensor data is mapped, never read)."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        if size == 0:
            raise GgufLayoutError("it is empty (0 bytes)", cut=True)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            cur = _Cursor(data, size)
            version, tensors, keys = _header(cur)
            alignment = _metadata(cur, keys)
            ends = _tensor_ends(cur, tensors)
            start = -(-cur.pos // alignment) * alignment
    if not ends:  # no tensors, so no data section (nor its padding) to check
        return GgufLayout(version, tensors, keys, cur.pos, cur.pos, size)
    name, end = max(ends, key=lambda e: e[1])
    if start + end > size:
        raise GgufLayoutError(
            f"its tensor data ends at byte {start + end} (tensor {name!r}) but the file has "
            f"{size} bytes", cut=True)
    return GgufLayout(version, tensors, keys, start, start + end, size)
