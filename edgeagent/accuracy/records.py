"""BFCL v4 single-turn records from bfcl-eval's data files, built as MLPerf's dataset builder
builds its rows: the question's turns flattened into OpenAI messages (a null content sent as
"", which llama.cpp servers require), the functions converted into `tools` by bfcl-eval, the
possible answers from possible_answer/ (none for the irrelevance and relevance subsets), and
the function docs the checker reads. A record without a question is skipped, as there."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine import Message
from ..errors import UserError
from .bfcl import data_dir, openai_tools
from .rules import CATEGORY_OF, SINGLE_TURN_SUBSETS


@dataclass(frozen=True)
class BfclRecord:
    id: str
    subset: str
    messages: tuple[dict[str, str], ...]  # OpenAI messages, sent as they are
    tools: tuple[dict[str, Any], ...]  # OpenAI function tools
    functions: tuple[dict[str, Any], ...]  # BFCL's function docs (the checker's input)
    ground_truth: tuple[dict[str, Any], ...]  # possible answers: [{name: {arg: [values]}}]

    @property
    def category(self) -> str | None:
        return CATEGORY_OF.get(self.subset)

    def chat(self) -> list[Message]:
        """The messages as the engine takes them (the chat template renders them)."""
        return [Message(m["role"], m["content"]) for m in self.messages]


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _answers(folder: Path, subset: str) -> dict[str, list[dict[str, Any]]]:
    path = folder / "possible_answer" / f"BFCL_v4_{subset}.json"
    if not path.is_file():
        return {}
    return {e["id"]: e.get("ground_truth", []) for e in _json_lines(path) if e.get("id")}


def record_of(sample: dict[str, Any], subset: str,
              ground_truth: Sequence[dict[str, Any]]) -> BfclRecord | None:
    """One BFCL sample (its `id`, `question` turns, `function` docs) as a record."""
    question = sample.get("question") or []
    if not question:
        return None
    functions = sample.get("function") or []
    messages = tuple({"role": m["role"], "content": m.get("content") or ""}
                     for turn in question for m in turn)
    return BfclRecord(str(sample.get("id", "")), subset, messages,
                      tuple(openai_tools(functions)), tuple(functions), tuple(ground_truth))


def load_subset(subset: str, folder: Path | None = None) -> list[BfclRecord]:
    """Every record of one subset, in the file's order."""
    if subset not in SINGLE_TURN_SUBSETS:
        raise UserError(unknown_subset(subset))
    folder = folder or data_dir()
    path = folder / f"BFCL_v4_{subset}.json"
    if not path.is_file():
        raise UserError(f"bfcl-eval has no data file {path} (is its install complete? "
                        "reinstall the accuracy extra)")
    answers = _answers(folder, subset)
    records = (record_of(s, subset, answers.get(s.get("id", ""), []))
               for s in _json_lines(path))
    return [r for r in records if r is not None]


def unknown_subset(name: str) -> str:
    return (f"--subset {name}: not a BFCL v4 single-turn subset (choose from "
            f"{', '.join(SINGLE_TURN_SUBSETS)})")
