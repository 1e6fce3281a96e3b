"""gguf_layout reads a GGUF's layout as gguf-py (llama.cpp's own Python reader) does."""

from __future__ import annotations

from pathlib import Path

import pytest
from gguf import GGML_QUANT_SIZES, GGUFReader

from edgeagent.gguf_layout import GGML_BLOCKS, GgufLayoutError, read_layout


def test_block_sizes_match_gguf_py() -> None:
    ours = dict(GGML_BLOCKS)
    theirs = {t.value: sizes for t, sizes in GGML_QUANT_SIZES.items()}
    assert {k: theirs[k] for k in ours} == ours  # every type we size, sized as theirs
    assert set(theirs) - set(ours) == set()  # and none of theirs is missing


@pytest.mark.parametrize("fixture", ["tiny_model_path", "tiny_tools_model_path"])
def test_layout_matches_gguf_py(fixture: str, request: pytest.FixtureRequest) -> None:
    path: Path = request.getfixturevalue(fixture)
    reader = GGUFReader(path)
    layout = read_layout(path)
    assert layout.version == 3
    assert layout.tensors == len(reader.tensors)
    assert layout.data_offset == reader.data_offset
    assert layout.data_end == max(t.data_offset + t.n_bytes for t in reader.tensors)
    assert layout.data_end == layout.size == path.stat().st_size


def test_every_cut_is_reported_as_cut_short(tiny_model_path: Path, tmp_path: Path) -> None:
    data = tiny_model_path.read_bytes()
    cut = tmp_path / "cut.gguf"
    # every 997th byte: header, metadata, tensor infos and data alike
    for end in range(0, len(data), 997):
        cut.write_bytes(data[:end])
        with pytest.raises(GgufLayoutError) as info:
            read_layout(cut)
        assert info.value.cut, (end, str(info.value))
