"""Write tasks/replay/long.jsonl: a synthetic MLPerf-format conversation of 32 assistant turns
whose contexts pass 8,192 tokens with the default model's tokenizer (10,517 at the last
turn), the long workload for `edgeagent replay` (edgeagent/replay/synthetic.py makes it).

    python tasks/generators/gen_replay_long.py [OUT]

Deterministic: the same file every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from edgeagent.replay.synthetic import write_synthetic

TURNS = 32
READ_LINES = 60  # lines per read_file result: a 60-line window, as an agent reads a module
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "replay" / "long.jsonl"


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else DEFAULT_OUT
    write_synthetic(out, TURNS, read_lines=READ_LINES)
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
