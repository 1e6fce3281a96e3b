"""The agent loop's limits and switches: the run's config section (LimitsConfig, each key's
default, help and flag declared here once) and the record one task's loop runs with
(AgentLimits). Imports nothing heavy, so the config can."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import setting
from .stuck import DEFAULT_STUCK_AFTER

# the built-in limits where neither the run nor the task sets one
DEFAULT_MAX_STEPS = 20
DEFAULT_WALL_S = 600.0
# loop steps after a whole-file draft that was not kept (LimitsConfig.after_draft_steps)
DEFAULT_AFTER_DRAFT_STEPS = 4
TOOL_FORMATS = ("auto", "native", "text")
# repair.py: greedy repairs shown the tests' output; sampled drafts; sampled repairs
REPAIR_STRATEGIES = ("repair", "sample", "mix")


@dataclass(frozen=True)
class LimitsConfig:
    """What bounds and shapes each task's loop (a section of RunConfig); a limit left unset
    takes the task's own, then the built-in default."""

    max_steps: int | None = setting(
        None, "step limit per task", minimum=1,
        default_text=f"the task's own, else {DEFAULT_MAX_STEPS}")
    wall_s: float | None = setting(
        None, "wall-time limit per task, seconds",
        default_text=f"the task's own, else {DEFAULT_WALL_S:g}")
    max_context_tokens: int | None = setting(None, "context limit per task",
                                             default_text="--n-ctx")
    max_format_errors: int = setting(
        3, "consecutive malformed answers that end a task", cli=False)
    max_new_tokens: int = setting(384, "generation budget per step", minimum=1)
    observation_tokens: int = setting(
        1024, "most tokens of one tool result the model is shown", minimum=64, cli=False)
    grammar: bool = setting(True, "do not constrain tool calls with a grammar")
    # native: the chat template's own syntax and `tools`; text: our JSON protocol in the
    # system prompt; auto: text for a live run (the measured better one), native for a replay
    # where the template has it (agent/native.py)
    tool_format: str = setting(
        "auto", "how tool calls are written: native (the chat template's own syntax and "
        "tools), text (our JSON protocol in the system prompt), auto (text for a live run, "
        "the measured better one; native for a replay where the template supports tools); "
        "recorded in the run", choices=TOOL_FORMATS)
    # stuck.py: a task ends as `stuck` when this many steps in a row (the first included)
    # brought nothing new, every later one repeating a call already made with the same outcome
    stuck_after: int = setting(
        DEFAULT_STUCK_AFTER, "end a task as `stuck` when N-1 steps in a row repeat calls "
        "already made, with the same outcomes (0 disables)", metavar="N")
    # draft.py: when the issue names one source file, the model rewrites that whole file
    # first, kept only if the visible tests pass
    draft_first: bool = setting(
        True, "our loop without its first step, the whole-file draft of the one file the issue "
        "names (kept only if the visible tests pass)")
    # repair.py: after a draft that fails the visible tests, repair drafts shown the tests'
    # output (0 until repairs are measured on core; docs/agents.md)
    repair: int = setting(
        0, "after a draft that fails the visible tests, up to N repair drafts shown the "
        "tests' output, each written and tested like the draft (0: none)", metavar="N")
    # repair.py: what each repair round asks (docs/agents.md); sampled rounds draw at
    # SAMPLED_DRAFT_TEMPERATURE with the round's number as the seed
    repair_strategy: str = setting(
        "repair", "what each --repair round asks: repair (greedy, the drafted file and the "
        "tests' output), sample (the draft's own prompt again, sampled, seeded), mix (the "
        "repair prompt, sampled)", choices=REPAIR_STRATEGIES)
    # loop.py: after a whole-file draft (and its repairs) that was not kept, the loop's steps
    # are capped: on core the loop's fixes after a failed draft came by its 4th step, and runs
    # with the cap on every core task whose draft was not kept resolved the same tasks on both
    # models; the steps it cuts had resolved nothing (docs/results/repair-strategies.md)
    # None: a run recorded before the budget was the default (its config.yaml says null), so
    # --resume goes on as it ran: up to the step limit, as 0 does
    after_draft_steps: int | None = setting(
        DEFAULT_AFTER_DRAFT_STEPS, "after a whole-file draft (and its repairs) that was not "
        "kept, at most N more steps of the loop; the task then ends `step_budget` (0: up to "
        "the step limit)", minimum=0, metavar="N")


@dataclass(frozen=True)
class AgentLimits:
    """The limits one task's loop runs with: the run's, else the task's, else the built-in
    defaults (run/runner.py resolves them)."""

    max_steps: int = DEFAULT_MAX_STEPS
    max_context_tokens: int | None = None  # None: the engine's context window
    wall_s: float | None = DEFAULT_WALL_S
    max_format_errors: int = LimitsConfig.max_format_errors  # consecutive
    max_new_tokens: int = LimitsConfig.max_new_tokens
    observation_tokens: int = LimitsConfig.observation_tokens
    use_grammar: bool = LimitsConfig.grammar
    # native | text, resolved for the run (agent/native.py)
    tool_format: str = "text"
    stuck_after: int = LimitsConfig.stuck_after  # identical steps that end a task; 0: never
    draft_first: bool = LimitsConfig.draft_first
    repair: int = LimitsConfig.repair
    repair_strategy: str = LimitsConfig.repair_strategy
    after_draft_steps: int | None = LimitsConfig.after_draft_steps  # 0, None: step limit
