"""The inline accuracy check of MLPerf Edge Agentic: executables of bash tool calls, multiset IoU.

For a shell command: quoted strings are removed, the rest is split on `|`, `&&`, `||`, `;`
(and newlines), each piece loses its leading `VAR=x` assignments and wrapper commands
(`sudo`, `env`, `timeout 10`, ...) with their options, and the first word's basename,
lower-cased, with a versioned `python3.11` made `python`, is the executable.

Our own tools are JSON actions, not bash: `run` (our bash tool) is scored by its command like
MLPerf's `bash`; every other tool counts as one executable named after the tool
(`read_file`, `edit`, ...), so a turn scores 1 when the model picks the recorded tool.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

BASH_TOOLS = frozenset({"bash", "run", "shell", "execute_bash", "run_command", "terminal"})
WRAPPERS = frozenset({"sudo", "env", "timeout", "nohup", "nice", "time", "exec", "command",
                      "stdbuf", "ionice"})

# wrapper options that take a value (`sudo -u bob`, `timeout -s KILL 10`)
_VALUE_OPTIONS = {"sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t"},
                  "timeout": {"-s", "-k", "--signal", "--kill-after"},
                  "env": {"-u", "-C", "-S", "--unset", "--chdir"}, "nice": {"-n"},
                  "ionice": {"-c", "-n", "-p"}, "stdbuf": set()}
_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")
_SEPARATORS = re.compile(r"\|\||&&|\||;|\n")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"^\d+(\.\d+)?[smhd]?$")
_PYTHON = re.compile(r"^python\d+(\.\d+)*$")


def normalise_executable(word: str) -> str:
    name = word.rsplit("/", 1)[-1].lower()
    return "python" if _PYTHON.match(name) else name


def executables(command: str) -> list[str]:
    """The executables a shell command runs, in order, normalised."""
    stripped = _QUOTED.sub(" ", command)
    out: list[str] = []
    for piece in _SEPARATORS.split(stripped):
        words = piece.replace("(", " ").replace(")", " ").replace("{", " ").split()
        i = 0
        while i < len(words):
            word = words[i]
            if _ASSIGNMENT.match(word) or word in ("!", "}"):
                i += 1
            elif word in WRAPPERS:
                i += 1
                while i < len(words) and words[i].startswith("-"):
                    takes_value = words[i] in _VALUE_OPTIONS.get(word, set())
                    i += 2 if takes_value else 1
                if word == "timeout" and i < len(words) and _DURATION.match(words[i]):
                    i += 1
            else:
                break
        if i < len(words):
            name = normalise_executable(words[i])
            if name:
                out.append(name)
    return out


def call_executables(name: str, args: dict[str, Any]) -> list[str]:
    """Executables of one tool call: a bash tool's command, else the tool's own name."""
    if name.lower() in BASH_TOOLS and isinstance(args.get("command"), str):
        return executables(args["command"])
    return [name.lower()]


def turn_executables(calls: Iterable[tuple[str, dict[str, Any]]]) -> list[str]:
    return [exe for name, args in calls for exe in call_executables(name, args)]


def multiset_iou(reference: Sequence[str], predicted: Sequence[str]) -> float:
    """|A & B| / |A | B| over multisets; two empty sets agree (1.0)."""
    a, b = Counter(reference), Counter(predicted)
    union = sum((a | b).values())
    if union == 0:
        return 1.0
    return sum((a & b).values()) / union


def score_turn(reference: Sequence[str], predicted: Sequence[str] | None) -> float:
    """A turn without output (dropped, failed) scores 0."""
    if predicted is None:
        return 0.0
    return multiset_iou(reference, predicted)


def parse_generated_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Tool calls in generated text: every top-level JSON object with a `name`, whether bare
    (our grammar's format), in Qwen's `<tool_call>` tags or in a fenced block; `arguments`
    may be an object or an OpenAI-style JSON string."""
    decoder = json.JSONDecoder()
    calls: list[tuple[str, dict[str, Any]]] = []
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            args = value.get("arguments", value.get("parameters", {}))
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except json.JSONDecodeError:
                    args = {}
            calls.append((value["name"], args if isinstance(args, dict) else {}))
        i = text.find("{", end)
    return calls


def mean_score(scores: Sequence[float]) -> float | None:
    return sum(scores) / len(scores) if scores else None
