"""What the agent decides: the step loop (loop.py), the prompts (prompt.py), the text
tool-call format with its grammar and parser (actions.py), native tool calling (native.py) and
the stuck rule (stuck.py). It knows the Engine protocol, the Toolbox and an event sink, and
nothing of SQLite, textual or sensors."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "actions": ("Action", "FormatError", "action_constraint", "action_fields",
                "action_grammar", "action_schema", "parse_action"),
    "loop": ("AgentLimits", "LoopResult", "run_agent"),
    "native": ("ToolFormat", "native_action", "native_constraint", "openai_tools",
               "resolve_tool_format"),
    "prompt": ("issue_reminder", "observation", "system_prompt", "task_prompt"),
    "stuck": ("DEFAULT_STUCK_AFTER", "RepeatCounter", "first_stuck_step", "is_stuck",
              "stuck_reason"),
})
