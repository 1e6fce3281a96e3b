"""What the model reads: the system prompt with tool specs, the task, and observations."""

from __future__ import annotations

from collections.abc import Sequence

from ..sandbox import ToolResult, ToolSpec


def _signature(spec: ToolSpec) -> str:
    props = spec.parameters.get("properties", {})
    required = set(spec.parameters.get("required", []))
    args = ", ".join(name if name in required else f"{name}?" for name in props)
    return f"{spec.name}({args})"


_ROLE = (
    "You are a coding agent. You fix an issue in a small repository, which is your "
    "current directory, by calling tools.\n"
)
_WORKFLOW = (
    "Work in this order: read the file named in the issue with read_file, change the "
    "wrong line with edit (old must be copied exactly from the file, without the line "
    "numbers), run_tests, and submit when the tests pass."
)


def system_prompt(specs: Sequence[ToolSpec], native: bool = False) -> str:
    """`native`: the chat template renders the tools and their call syntax itself, so the
    prompt lists neither; the workflow stays."""
    if native:
        return f"{_ROLE}Call exactly one tool every turn.\n\n{_WORKFLOW}"
    tools = "\n".join(f"- {_signature(s)}: {s.description}" for s in specs)
    return (
        f"{_ROLE}"
        "Answer every turn with exactly one tool call as a JSON object:\n"
        '{"name": "<tool>", "arguments": {<argument>: <value>}}\n'
        "Arguments marked ? are optional.\n\n"
        f"Tools:\n{tools}\n\n"
        f"{_WORKFLOW}"
    )


def task_prompt(title: str, issue: str, files: Sequence[str] = ()) -> str:
    named = named_files(issue, files)
    rest = [f for f in files if f not in named]
    listing = (
        f"\n\nFiles in the repository: {', '.join(named + _code_first(rest))}" if files else ""
    )
    return f"Issue: {title}\n\n{issue.strip()}{listing}\n\n{_first_move(named)}"


def named_files(issue: str, files: Sequence[str]) -> list[str]:
    """The listed files whose path the issue mentions, in the order it mentions them."""
    hits = [(issue.find(f), f) for f in files if f != "..." and f in issue]
    return [f for _, f in sorted(hits)]


def _first_move(named: Sequence[str]) -> str:
    """Where to start. A 0.5B model otherwise opens the first file listed (often a package's
    __init__.py) and edits that, even when the issue names the right file (core easy tier)."""
    code = [f for f in named if _rank(f) == 0]
    if code:
        return f"The issue names {code[0]}: start by reading it with read_file."
    if named:
        return (
            f"The issue names {named[0]}: start by reading it, then the code it imports."
        )
    return "Start by reading the code file named in the issue."


def _code_first(files: Sequence[str]) -> list[str]:
    """Code, then tests, then docs: small models read the first file listed, and a README
    sorted first drew them away from the file the issue names (measured on core tasks)."""
    return sorted(files, key=_rank)  # stable: the walk's order within each rank


def _rank(path: str) -> int:
    if path == "...":  # the listing was cut: stays last
        return 3
    name = path.rsplit("/", 1)[-1].lower()
    if name.startswith(("readme", "changelog", "license")) or name.endswith(
        (".md", ".rst", ".txt")
    ):
        return 2
    return 1 if "test" in path.lower() else 0


def observation(
    name: str, result: ToolResult, text: str, repeated: bool = False, reminder: str | None = None
) -> str:
    """`text` is the tool output already cut to the observation budget.

    A small model under greedy decoding tends to repeat a failing call forever; saying so
    in the observation changes the context enough for it to try something else.
    """
    if result.error:
        head = f"Error from {name}:"
        if repeated:
            text += (
                "\nThis is the same call as your previous one, which failed the same way; "
                "do something different."
            )
    else:
        head = f"Result of {name}:"
    body = f"{head}\n{text}" if text else head
    hint = next_step_hint(name, result)
    if hint and reminder and (name in ("read_file", "grep") or (name == "edit" and result.error)):
        hint = f"The issue says: {reminder}\n{hint}"
    return f"{body}\n\n{hint}" if hint else body


def next_step_hint(name: str, result: ToolResult) -> str | None:
    """A workflow hint after each observation, the same for every task.

    Small models under greedy decoding otherwise tend to repeat their previous call (the
    0.5B default re-read the same file for 12 steps without it, and after a failed edit
    copied the error message into its next edit).
    """
    if result.error:
        if name == "edit":
            return (
                "Next: call edit again with old copied exactly from the file's lines and new "
                "holding the corrected text."
            )
        return None
    if name in ("read_file", "grep", "list_dir"):
        return "Next: if you found the wrong line, fix it with edit; otherwise keep looking."
    if name in ("edit", "write_file"):
        return "Next: check the change with run_tests."
    if name in ("run_tests", "run"):
        if result.exit_code == 0:
            return "Next: if this was run_tests and the tests pass, call submit."
        return "Next: read the code the failure points at and fix it with edit."
    return None


def issue_reminder(issue: str, limit: int = 400) -> str | None:
    """The issue's first paragraph, repeated after each read: a 0.5B model that has just read
    a 30-line file copies `old` from the file's first lines, not from the line the issue
    points at, once the issue is a few hundred tokens back (core easy tier)."""
    lead = issue.strip().split("\n\n", 1)[0].strip()
    return lead if lead and len(lead) <= limit else None


def format_error_observation(message: str) -> str:
    return f"Format error: {message}"
