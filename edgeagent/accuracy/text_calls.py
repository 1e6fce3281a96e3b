"""Calls written as text, `name(key=value, ...)`: the last resort of MLPerf's
FunctionCallExtractor (evaluation/extractor.py), rule for rule, for an answer that holds
neither native calls nor a JSON array of them.

- A call starts at a word `[A-Za-z_]\\w*` followed by `(` (so `math.factorial(` is read as
  `factorial`); Python keywords, builtins and a few English words (SKIP) are not calls.
- Its arguments run to the matching `)`, quotes ('...', "...", backslash escapes) respected;
  a call inside another call's parentheses is not read again.
- Arguments that are bare names (`city`, `x: int`) are a signature, not a call: skipped.
- Keyword arguments are read as Python literals (their source text when they are not one);
  positional ones are dropped; arguments that do not parse become {"_raw": text}.
"""

from __future__ import annotations

import ast
import re
from typing import Any

SKIP = frozenset({
    "print", "return", "if", "for", "while", "def", "class", "import", "from", "with",
    "assert", "raise", "try", "except", "len", "str", "int", "float", "list", "dict", "set",
    "tuple", "type", "isinstance", "range", "enumerate", "zip", "map", "filter", "Note",
    "Example", "Here", "This", "The", "For",
})
_CALL_START = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_SIGNATURE_PART = re.compile(r"[A-Za-z_]\w*(?:\s*:\s*\w+)?")


def closing_paren(text: str, start: int) -> int | None:
    """The index of the `)` matching the `(` at `start`, or None when it is never closed."""
    depth, i = 0, start
    single = double = False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and (single or double):
            i += 2  # an escaped character inside a string
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and not double:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    return i
        i += 1
    return None


def is_signature(args: str) -> bool:
    return all(_SIGNATURE_PART.fullmatch(p.strip()) for p in args.split(",") if p.strip())


def keyword_arguments(args: str) -> dict[str, Any]:
    """`key=value` pairs as a dict of Python literals (or their source text)."""
    if not args:
        return {}
    out: dict[str, Any] = {}
    try:
        tree = ast.parse(f"dict({args})", mode="eval")
        if isinstance(tree.body, ast.Call):
            for kw in tree.body.keywords:
                if kw.arg is None:
                    continue  # **kwargs
                try:
                    out[kw.arg] = ast.literal_eval(kw.value)
                # MLPerf catches ValueError and SyntaxError; the rest (an unhashable key,
                # too deep a nesting) would stop its scorer, here it keeps the text too
                except (ValueError, SyntaxError, TypeError, RecursionError):
                    out[kw.arg] = ast.unparse(kw.value)
    except (SyntaxError, ValueError, RecursionError):
        return {"_raw": args}
    return out


def calls_in_text(text: str) -> list[dict[str, Any]] | None:
    """Every call written in `text` as {"name", "arguments"}, or None when there is none."""
    calls: list[dict[str, Any]] = []
    taken: list[tuple[int, int]] = []  # the argument spans of calls already read
    for match in _CALL_START.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
            continue
        name = match.group(1)
        if name in SKIP:
            continue
        open_at = match.end() - 1
        close_at = closing_paren(text, open_at)
        if close_at is None:
            continue
        taken.append((open_at, close_at + 1))
        args = text[open_at + 1:close_at].strip()
        if args and is_signature(args):
            continue
        calls.append({"name": name, "arguments": keyword_arguments(args)})
    return calls or None
