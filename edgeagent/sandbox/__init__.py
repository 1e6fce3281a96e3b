"""Where actions run: a throwaway copy of the task's repository (workspace.py), commands
under limits and confinement (process.py, confine.py), what a command may add to the workspace
(disk.py, overlay_merge.py), the FIFOs and sockets a command must not reach
(special_files.py), and the agent's tools (tools.py, edit_match.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "command_limits": ("DEFAULT_COMMAND_TIMEOUT_S", "SandboxConfig"),
    "process": ("CommandResult", "ProcessLimits", "isolation_report", "kill_session",
                "run_command"),
    "tools": ("ALL_TOOL_SPECS", "SKIP_DIRS", "TOOL_SPECS", "ToolResult", "ToolSpec",
              "Toolbox"),
    "workspace": ("PathRefused", "Workspace", "WorkspaceError"),
    "special_files": ("SpecialFiles",),
})
