"""What the agent decides: the step loop (loop.py), the prompts (prompt.py), the tool-call
format with its grammar and parser (actions.py) and the stuck rule (stuck.py). It knows the
Engine protocol, the Toolbox and an event sink, and nothing of SQLite, textual or sensors."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "actions": ("Action", "FormatError", "action_constraint", "action_fields",
                "action_grammar", "action_schema", "parse_action"),
    "loop": ("AgentLimits", "LoopResult", "run_agent"),
    "prompt": ("issue_reminder", "observation", "system_prompt", "task_prompt"),
    "stuck": ("DEFAULT_STUCK_AFTER", "RepeatCounter", "first_stuck_step", "is_stuck"),
})
