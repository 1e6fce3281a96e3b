"""The agent loop's limits and switches, with their defaults: the one place they are declared
(the run's config takes its defaults from here). Imports nothing heavy, so the config can."""

from __future__ import annotations

from dataclasses import dataclass

from .stuck import DEFAULT_STUCK_AFTER


@dataclass(frozen=True)
class AgentLimits:
    max_steps: int = 20
    max_context_tokens: int | None = None  # None: the engine's context window
    wall_s: float | None = 600.0
    max_format_errors: int = 3  # consecutive
    max_new_tokens: int = 384
    observation_tokens: int = 1024
    use_grammar: bool = True
    # native: the template renders the tools, calls in its own syntax, tool messages;
    # text: our JSON protocol (agent/native.py resolves which for a run)
    tool_format: str = "text"
    stuck_after: int = DEFAULT_STUCK_AFTER  # identical steps that end a task; 0: never
    # step 0 a whole-file draft when the issue names one source file (draft.py)
    draft_first: bool = True
    # after a draft that fails the visible tests, up to this many repair drafts shown the
    # tests' output (repair.py); 0: none
    repair: int = 0
