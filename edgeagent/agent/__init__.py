"""What the agent decides: the step loop (loop.py), the prompts (prompt.py), the text
tool-call format with its grammar and parser (actions.py), native tool calling (native.py),
the stuck rule (stuck.py), the whole-file prompt and its answer (whole_file.py) and draft
first: a whole-file draft as step 0, kept only when the visible tests pass (draft.py). It
knows the Engine protocol, the Toolbox and an event sink, and nothing of SQLite, textual or
sensors."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "actions": ("Action", "FormatError", "action_constraint", "action_fields", "action_grammar",
                "action_schema", "parse_action"),
    "draft": ("DraftOutcome", "DraftTarget", "apply_draft", "changes_a_line", "draft_target",
              "located_file"),
    "limits": ("AgentLimits", "DEFAULT_MAX_STEPS", "DEFAULT_WALL_S", "LimitsConfig",
               "REPAIR_STRATEGIES", "TOOL_FORMATS"),
    "loop": ("LoopResult", "run_agent"),
    "native": ("ToolFormat", "native_action", "native_constraint", "openai_tools",
               "resolve_tool_format"),
    "repair": ("FEEDBACK_TOKENS", "SAMPLED_DRAFT_TEMPERATURE", "failing_first", "repair_prompt",
               "repair_provenance", "tried_note"),
    "prompt": ("issue_reminder", "observation", "system_prompt", "task_prompt"),
    "stuck": ("DEFAULT_STUCK_AFTER", "RepeatCounter", "first_stuck_step", "is_stuck",
              "stuck_reason"),
    "whole_file": ("SYSTEM_PROMPT", "corrected_file", "file_to_fix", "generate_whole_file",
                   "source_text", "whole_file_prompt"),
})
