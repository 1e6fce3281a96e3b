"""Whole-file answers: the issue and the one source file it names in a single prompt, and the
corrected file read back from the answer's fenced block. Used by draft-first (draft.py) and by
the `single-shot` harness, so both send the same prompt and read answers the same way.

On one-line bugs a small model often fixes more when simply shown the file than when it must
find, read and edit it through tool calls (docs/results/loop-vs-baselines.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..engine import ContextOverflow, Engine, Generation, Message
from ..sandbox import SKIP_DIRS

SYSTEM_PROMPT = "You are an expert software engineer who fixes bugs precisely."
_FENCE = re.compile(r"```[^\n`]*\n(.*?)(?:\n```|\Z)", re.DOTALL)
_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".go": "go",
              ".rs": "rust", ".c": "c", ".h": "c", ".cpp": "cpp", ".java": "java",
              ".sh": "bash", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml",
              ".json": "json", ".md": "markdown", ".cfg": "ini", ".ini": "ini"}
# the answer may rewrite the file a little longer than it was
ANSWER_MARGIN_TOKENS = 256
# documents an issue may cite as the reference, never the file to fix
_DOC_SUFFIXES = {".md", ".rst", ".txt", ".adoc"}


def file_to_fix(ws_root: Path, issue: str) -> tuple[str | None, str]:
    """(the one source file the issue names, '') or (None, why there is none). Tests and
    documents (README.md, a spec) are never the file to fix."""
    named = sorted({rel for rel in source_files(ws_root) if _named(rel, issue)})
    if len(named) == 1:
        return named[0], ""
    if not named:
        return None, "the issue names none of the repository's source files"
    return None, f"the issue names {len(named)} of them: " + ", ".join(named[:5])


def source_files(root: Path) -> list[str]:
    """The repository's files a fix may change: not tests, documents or skipped folders."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or any(part in SKIP_DIRS for part in rel.parts):
            continue
        if rel.parts[0] in ("tests", "test") or rel.name.startswith("test_"):
            continue
        if rel.suffix.lower() in _DOC_SUFFIXES:
            continue
        out.append(rel.as_posix())
    return out


def _named(rel: str, issue: str) -> bool:
    return re.search(rf"(?<![\w/.-]){re.escape(rel)}(?![\w/-])", issue) is not None


def source_text(data: bytes) -> str | None:
    """The file as the prompt shows it, or None when it is not UTF-8 text (a NUL near the
    start, or bytes UTF-8 cannot decode): such a file cannot go into a prompt unchanged, and
    a corrected copy written back would not keep its other bytes."""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def language_of(rel: str) -> str:
    """The fenced block's language tag for a file ('' when unknown)."""
    return _LANGUAGES.get(Path(rel).suffix, "")


def whole_file_prompt(rel: str, content: str, title: str, issue: str) -> list[Message]:
    language = language_of(rel)
    user = (f"Fix this issue by changing {rel}.\n\n# Issue: {title}\n\n{issue.strip()}\n\n"
            f"# The current {rel}\n\n```{language}\n{content}\n```\n\n"
            f"Answer with the complete corrected {rel} in one fenced code block, and "
            "nothing else.")
    return [Message("system", SYSTEM_PROMPT), Message("user", user)]


def corrected_file(answer: str) -> str | None:
    """The first fenced block of the answer (a cut-off block up to where it stops)."""
    match = _FENCE.search(answer)
    if match is None:
        return None
    body = match.group(1)
    return body if body.endswith("\n") else body + "\n"


def generate_whole_file(
    engine: Engine, messages: list[Message], content: str, *,
    max_context_tokens: int | None = None, on_token: Callable[[str], None] | None = None,
) -> Generation:
    """One generation with room for the whole file and a margin, or what the window leaves
    of it when at least half of that fits (ContextOverflow otherwise)."""
    budget = engine.count_tokens(content) + ANSWER_MARGIN_TOKENS
    try:
        return engine.generate(messages, max_tokens=budget,
                               max_context_tokens=max_context_tokens, on_token=on_token)
    except ContextOverflow as exc:
        room = exc.limit - (exc.needed - budget)
        if room < budget // 2:
            raise
        return engine.generate(messages, max_tokens=room,
                               max_context_tokens=max_context_tokens, on_token=on_token)
