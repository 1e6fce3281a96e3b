"""The inline accuracy check of MLPerf Edge Agentic, re-implemented rule for rule.

The rules follow `AgenticInferenceInlineScorer` in mlcommons/endpoints,
src/inference_endpoint/evaluation/scoring.py (the stored copy read for this port reported no
commit; the same rules, plus heredoc stripping, are in
src/inference_endpoint/evaluation/multi_turn_inline_accuracy.py at commit
3e1b7032267d1985427c6287680bf74c1468bd00 — the scoring.py scorer, which MLPerf runs, does
*not* strip heredoc bodies, so neither do we). Per assistant turn:

- Domain: a conversation id `sim_<digits>` is a workflow conversation, every other one coding.
- Coding: the actions of a turn are taken from its tool calls named exactly `bash` (no other
  tool counts); the command is the `command` argument, else `cmd`, and must be a string.
  Quoted spans ('...', "..." with escapes, `...`) are replaced by a space; the rest is split
  on `||`, `|`, `&&`, `;` and newlines (so a heredoc's body lines are stages of their own);
  each stage's words lose leading `VAR=x` assignments and the wrappers env, time, nice, sudo,
  exec, command (their options are not skipped); the next word's basename, lower-cased, less
  a version suffix `.N` or `.N.N`, is looked up in the alias table below, and a word not in
  the table is ignored. The turn scores the multiset IoU of model vs. recorded actions.
- Workflow: the recorded turn's `intent_codes` (upper-cased strings) against the model's
  intent: the first `intent: I123` (any case) in `reasoning_content`, else in `content`;
  failing that, the last bare `I123` of `reasoning_content`, else of `content`. 1 or 0.
- A turn whose recorded ground truth is empty (no listed executable, no intent code) is
  excluded (score None) and leaves the mean; a scorable turn without model output scores 0.
- The run's score is the mean over scored turns, rounded to 4 places.

Our own JSON tools (`run`, `read_file`, `edit`, ... of live runs) are not MLPerf's: they are
scored by `own_actions`, a rule of ours kept in a separate field (`own_score`) so that a replay
of MLPerf data gives exactly MLPerf's number: a bash-like tool (`run`, `shell`, ...) counts
the actions of its command by the rules above, any other tool one action named after it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..json_scan import json_values

Calls = Iterable[tuple[str, Mapping[str, Any]]]

# MLPerf's executable table: executable basename -> action; names not listed are ignored
ALIASES: dict[str, str] = {
    **{k: "python" for k in ("python", "python2", "python3", "py")},
    "pip": "pip", "pip3": "pip", "pytest": "pytest", "pylint": "pylint",
    "sphinx-build": "sphinx", "sphinx-quickstart": "sphinx", "cython": "cython",
    "make": "make", "conda": "conda",
    "cat": "cat", "head": "head", "tail": "tail", "less": "cat", "more": "cat", "wc": "wc",
    "diff": "diff",
    **{k: "grep" for k in ("grep", "egrep", "fgrep", "rg", "ag")},
    "sed": "sed", "awk": "awk", "gawk": "awk", "tr": "tr", "sort": "sort", "uniq": "uniq",
    "cut": "cut", "find": "find", "ls": "ls", "locate": "find", "xargs": "xargs",
    "cp": "cp", "mv": "mv", "rm": "rm", "mkdir": "mkdir", "touch": "touch", "tee": "tee",
    "source": "source", ".": "source", "which": "which", "alias": "alias", "unset": "unset",
    "export": "export", "git": "git", "curl": "curl", "wget": "curl", "true": "true",
    "false": "false", "timeout": "timeout", "date": "date",
    "apt-get": "apt", "apt": "apt", "yum": "yum",
}
WRAPPERS = frozenset({"env", "time", "nice", "sudo", "exec", "command"})
MLPERF_BASH_TOOL = "bash"
# our own bash-like tools (own_actions only)
BASH_TOOLS = frozenset({"bash", "run", "shell", "execute_bash", "run_command", "terminal"})

_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`")
_SEPARATORS = re.compile(r"\|\||\||&&|;|\n")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VERSION_SUFFIX = re.compile(r"\.\d+(\.\d+)?$")
_WORKFLOW_ID = re.compile(r"^sim_\d+$")
_INTENT = re.compile(r"\bintent:\s*(I\d{3})\b", re.IGNORECASE)
_BARE_INTENT = re.compile(r"\bI(\d{3})\b")


def normalise_executable(word: str) -> str | None:
    """The action a command word stands for, None when MLPerf's table does not list it."""
    leaf = _VERSION_SUFFIX.sub("", word.rsplit("/", 1)[-1].lower())
    return ALIASES.get(leaf)


def executables(command: str) -> list[str]:
    """The listed actions a shell command runs, in order, by MLPerf's rules."""
    out: list[str] = []
    for stage in _SEPARATORS.split(_QUOTED.sub(" ", command)):
        words = stage.split()
        while words and (_ASSIGNMENT.match(words[0]) or words[0] in WRAPPERS):
            words = words[1:]
        action = normalise_executable(words[0]) if words else None
        if action:
            out.append(action)
    return out


def _command(args: Any) -> str | None:
    """A call's command: `command`, else `cmd` (arguments may be JSON text); str or None."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except json.JSONDecodeError:
            return None
    if not isinstance(args, Mapping):
        return None
    command = args.get("command") or args.get("cmd")
    return command if isinstance(command, str) else None


def mlperf_actions(calls: Calls) -> list[str]:
    """MLPerf's actions of a turn: only calls named exactly `bash` count."""
    out: list[str] = []
    for name, args in calls:
        command = _command(args) if name == MLPERF_BASH_TOOL else None
        if command is not None:
            out.extend(executables(command))
    return out


def own_actions(calls: Calls) -> list[str]:
    """Our rule for our own tools: a bash-like tool by its command, any other by its name."""
    out: list[str] = []
    for name, args in calls:
        if name.lower() in BASH_TOOLS:
            out.extend(executables(_command(args) or ""))
        else:
            out.append(name.lower())
    return out


def multiset_iou(reference: Sequence[str], predicted: Sequence[str]) -> float | None:
    """|A & B| / |A | B| over multisets; None when both are empty (nothing to score)."""
    a, b = Counter(reference), Counter(predicted)
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else None


def score_turn(reference: Sequence[str], predicted: Sequence[str] | None) -> float | None:
    """A coding turn: None (excluded) without recorded actions; 0 without model output."""
    if not reference:
        return None
    return multiset_iou(reference, predicted or ()) or 0.0


def is_workflow(conversation_id: str) -> bool:
    return bool(_WORKFLOW_ID.match(conversation_id))


def intent_codes(value: Any) -> set[str]:
    """A recorded turn's `intent_codes`, upper-cased; empty for anything but a list."""
    if not isinstance(value, (list, tuple)):
        return set()
    return {c.upper() for c in value if isinstance(c, str) and c}


def model_intent(reasoning: str | None, content: str | None) -> str | None:
    """The model's intent: the first `intent: I123`, else the last bare `I123`, reasoning
    text searched before the content."""
    texts = [t if isinstance(t, str) else "" for t in (reasoning, content)]
    for text in texts:
        match = _INTENT.search(text)
        if match:
            return match.group(1).upper()
    for text in texts:
        matches = _BARE_INTENT.findall(text)
        if matches:
            return f"I{matches[-1]}"
    return None


def score_intent(codes: set[str], intent: str | None, missing: bool = False) -> float | None:
    """A workflow turn: None (excluded) without recorded codes, 1 when the intent is one."""
    if not codes:
        return None
    return 1.0 if not missing and intent in codes else 0.0


def parse_generated_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Tool calls in generated text: every top-level JSON object with a `name`, whether bare
    (our grammar's format), in Qwen's `<tool_call>` tags or in a fenced block; `arguments`
    may be an object or an OpenAI-style JSON string."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for value, _, _ in json_values(text):
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            args = value.get("arguments", value.get("parameters", {}))
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except (json.JSONDecodeError, RecursionError):  # a string may nest too deep
                    args = {}
            calls.append((value["name"], args if isinstance(args, dict) else {}))
    return calls


def scored_mean(scores: Iterable[float | None]) -> float | None:
    """The mean of the scored turns (None, an excluded turn, left out); None when none is."""
    scored = [s for s in scores if s is not None]
    return sum(scored) / len(scored) if scored else None


def mean_score(scores: Iterable[float | None]) -> float | None:
    """MLPerf's run score: the mean of the scored turns, rounded to 4 places as MLPerf
    writes it."""
    mean = scored_mean(scores)
    return round(mean, 4) if mean is not None else None
