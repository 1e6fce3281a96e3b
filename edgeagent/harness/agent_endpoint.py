"""The endpoint every external agent of a run talks to: our engine behind `edgeagent serve`'s
service, on 127.0.0.1 (for agents that run on the host, such as mini-swe-agent, whose commands
alone are sandboxed) and on a Unix socket (relayed into the sandbox's own loopback for a
program confined whole). One per run; each task opens and closes its unit on the recorder.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..engine import Engine
from ..events import EventSink
from ..serve import ChatServer, ChatService, StepRecorder

# the port an agent confined in the sandbox dials on its own loopback (relayed to the socket)
SANDBOX_PORT = 8080
API_KEY = "edgeagent"  # any key: the server is ours; a client library insists on one


class AgentHost:
    def __init__(self, engine: Engine, sink: EventSink, model_name: str,
                 max_tokens: int = 1024) -> None:
        self.recorder = StepRecorder(sink, engine.count_tokens)
        self.service = ChatService(engine, recorder=self.recorder, model_name=model_name,
                                   default_max_tokens=max_tokens)
        # outside every workspace and run directory: only the relay's path leads here
        self._dir = Path(tempfile.mkdtemp(prefix="edgeagent-endpoint-"))
        self.socket_path = self._dir / "endpoint.sock"
        self.server = ChatServer(self.service, port=0, unix_socket=self.socket_path)
        self.model_name = model_name

    @property
    def base_url(self) -> str:
        """For an agent on the host."""
        return self.server.base_url

    @property
    def sandbox_base_url(self) -> str:
        """For an agent confined in the sandbox (its loopback, relayed to the socket)."""
        return f"http://127.0.0.1:{SANDBOX_PORT}/v1"

    def __enter__(self) -> AgentHost:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.server.close()
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
