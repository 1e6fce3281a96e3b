"""`edgeagent serve`'s parts: OpenAI chat completions on the wire (wire.py), one request through
the engine (service.py), served requests recorded as a run's steps with the agent's own time
as their tool phase (recorder.py), and the HTTP server on loopback TCP and a Unix socket
(server.py). The run directory and the meter come from edgeagent.run (run/serve.py)."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "wire": ("ChatRequest", "WireError", "parse_chat_request"),
    "completion": ("ChatService", "ClientGone", "Served"),
    "recorder": ("StepRecorder", "TaskTally"),
    "server": ("ChatServer",),
})
