"""The one scanner for JSON inside a model's text: tool calls in free text, in tags, in fences.

A model's text is hostile input: a value may be cut short, nested past the interpreter's
recursion limit ("[[[[..." for a whole generation) or surrounded by prose. Every reader of
generated JSON scans with this module, so each gets the same guard: a value that does not
decode, for whatever reason, is skipped and the scan goes on at the next opener.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

# control characters inside strings are accepted: llama.cpp's JSON grammar lets them through
LENIENT = json.JSONDecoder(strict=False)
STRICT = json.JSONDecoder()


def json_values(text: str, openers: str = "{", decoder: json.JSONDecoder = STRICT
                ) -> Iterator[tuple[Any, int, int]]:
    """Each JSON value in `text` that starts at one of `openers`, left to right, with its
    start and end offsets. After a value the scan goes on at its end (values inside it are
    not reported again); after text that does not decode, at the next opener."""
    i = _next_opener(text, openers, 0)
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nesting too deep
            i = _next_opener(text, openers, i + 1)
            continue
        yield value, i, end
        i = _next_opener(text, openers, end)


def first_json_value(text: str, openers: str = "{", decoder: json.JSONDecoder = STRICT
                     ) -> Any | None:
    """The first value `json_values` finds, or None when there is none."""
    return next((value for value, _, _ in json_values(text, openers, decoder)), None)


def _next_opener(text: str, openers: str, start: int) -> int:
    found = [i for i in (text.find(ch, start) for ch in openers) if i != -1]
    return min(found) if found else -1
