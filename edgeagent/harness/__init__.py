"""The agents a run can measure (`edgeagent run --agent NAME`): agents.py names them and opens
the run's endpoint; single_shot.py (no loop: the issue and its file, one answer);
command.py (`--agent-cmd`, any program confined whole, our endpoint its only network);
mini_swe*.py (the real mini-swe-agent, its commands through our sandbox); aider*.py (the
real aider, from an environment of its own, confined whole); agent_endpoint.py (the
endpoint: `edgeagent serve`'s service for the run); outcome.py (how an external agent ended)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "agents": ("AGENT_LOG_DIR", "EXTERNAL_AGENTS", "AgentContext", "agent_provenance",
               "agent_status", "check_agent", "open_agents", "run_external"),
    "aider_env": ("AIDER_VERSION", "aider_available", "install_aider"),
    "single_shot": ("run_single_shot",),
    "command": ("PLACEHOLDERS", "check_template"),
    "agent_endpoint": ("AgentHost",),
})
