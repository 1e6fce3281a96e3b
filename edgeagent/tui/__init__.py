"""Terminal UI (textual): the live dashboard of `edgeagent run` and the `edgeagent view`
browser. Importing this package does not import textual; launch.py decides whether the
dashboard can open."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "app": ("CHARTS_S", "DashboardApp"),
    "launch": ("run_in_tui", "tui_available", "use_tui"),
    "screen": ("screen_text",),
    "state": ("DashboardState",),
    "stored": ("run_events",),
    "view": ("ViewApp", "check_view_paths"),
    "widgets": ("STATUS", "TaskTable", "fmt_j", "fmt_s"),
})
