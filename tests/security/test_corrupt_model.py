"""A model file cut short by an interrupted copy, or garbled: `edgeagent run`, `replay` and
`sweep` given it with `--model PATH` stop with one line naming the file and the fix, exit
code 2, before any task starts, with no run directory left behind and nothing printed by
llama.cpp (the layout is checked before llama.cpp is given the file: edgeagent/gguf_layout.py).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from gguf import GGUFReader

from edgeagent import cli

# every test here starts processes or loads a model (tests/slow_guard.py)
pytestmark = pytest.mark.slow


def _cuts(model: Path) -> dict[str, Callable[[bytes], bytes]]:
    """Ways a copy goes wrong, each from the tiny model's bytes; the cut points are read off
    the file's own layout (gguf-py) so each lands inside the part it names."""
    reader = GGUFReader(model)
    tokens = reader.fields["tokenizer.ggml.tokens"].offset
    tensor_info = reader.tensors[len(reader.tensors) // 2].field.offset
    data = reader.data_offset
    rng = random.Random(34)
    return {
        "cut_in_header": lambda b: b[:10],
        "cut_in_metadata": lambda b: b[:tokens + 40],
        "cut_in_tensor_info": lambda b: b[:tensor_info + 12],
        "cut_in_tensor_data": lambda b: b[:data + (len(b) - data) // 2],
        "last_byte_missing": lambda b: b[:-1],
        "random_bytes": lambda b: rng.randbytes(len(b)),
        "gguf_magic_then_random": lambda b: b"GGUF" + rng.randbytes(len(b) - 4),
        "zero_bytes": lambda b: b"",
    }


CASES = ("cut_in_header", "cut_in_metadata", "cut_in_tensor_info", "cut_in_tensor_data",
         "last_byte_missing", "random_bytes", "gguf_magic_then_random", "zero_bytes")
COMMANDS = {
    "run": ["run", "--suite", "smoke", "--task", "fix-add", "--max-steps", "1", "--headless"],
    "replay": ["replay", "--conversations", "1", "--max-new-tokens", "4"],
    "sweep": ["sweep", "--threads", "1,2", "--conversations", "1"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", CASES)
def test_a_broken_model_file_fails_before_any_task(
    case: str, command: str, tiny_model_path: Path, tmp_path: Path,
    capfd: pytest.CaptureFixture[str], reliability,
) -> None:
    broken = tmp_path / f"{case}.gguf"
    broken.write_bytes(_cuts(tiny_model_path)[case](tiny_model_path.read_bytes()))
    out = tmp_path / "runs"
    reliability("faults", injected=1)
    reliability("fault_kinds", corrupt_model=1)
    code = cli.main([*COMMANDS[command], "--model", str(broken), "--out", str(out)])
    captured = capfd.readouterr()  # file-descriptor level: llama.cpp's own prints too
    assert code == 2, captured.err
    assert "Traceback" not in captured.err + captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err  # nothing from llama.cpp, no progress lines
    line = lines[0]
    assert line.startswith("edgeagent: error: ") and str(broken) in line, line
    # the fix: a cut or garbled copy is copied again; a file of another kind is replaced
    assert "again" in line or "give a llama.cpp .gguf model file" in line, line
    leftovers = [p for p in out.rglob("*")] if out.exists() else []
    assert leftovers == [], leftovers  # no run or sweep directory, half made or not
    assert not os.path.exists(str(broken) + ".sha256.json")  # not even hashed
    reliability("faults", survived=1)
