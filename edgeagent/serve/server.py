"""The HTTP side of `edgeagent serve`: OpenAI's chat-completions routes on loopback TCP and,
for agents confined in the sandbox, on a Unix socket (the sandbox relays its own
127.0.0.1:PORT there). Standard library only: one thread per connection, the engine lock in
ChatService serialising generations.

Routes: POST /v1/chat/completions (streaming or not), GET /v1/models, GET /health, and
GET /props with the context size (llama-server's name), so a client can size its prompts.
Every refusal is OpenAI's error JSON; a handler never lets a traceback reach the client.
"""

from __future__ import annotations

import json
import socketserver
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .completion import ChatService, ClientGone
from .wire import (
    ChatRequest,
    WireError,
    chunk,
    completion_body,
    final_chunks,
    new_completion_id,
    parse_chat_request,
)

MAX_BODY_BYTES = 32 << 20
_CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "edgeagent-serve"
    service: ChatService  # set on the subclass each server makes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # requests are recorded as steps, not logged to stderr

    def do_GET(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": [
                {"id": self.service.model_name, "object": "model", "owned_by": "edgeagent",
                 "created": 0}]})
        elif path == "/health":
            self._json(200, {"status": "ok"})
        elif path == "/props":
            self._json(200, {"n_ctx": self.service.engine.n_ctx,
                             "default_generation_settings": {"n_ctx": self.service.engine.n_ctx},
                             "model_alias": self.service.model_name})
        else:
            self._error(WireError(404, f"no route GET {path}", kind="not_found_error"))

    def do_POST(self) -> None:  # noqa: N802
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._drain_body()
            self._error(WireError(404, f"no route POST {path}", kind="not_found_error"))
            return
        try:
            request = parse_chat_request(self._body())
            if request.stream:
                self._stream(request)
            else:
                served = self.service.complete(request)
                # recorded before the answer goes out: a client gone before it loses no step,
                # and an agent that asks again at once cannot overtake the record
                self.service.record(served)
                self._json(200, completion_body(served.gen, served.answer,
                                                new_completion_id(), self.service.model_name))
        except WireError as exc:
            self._error(exc)
        except (ClientGone, *_CLIENT_GONE):
            self.close_connection = True
        except Exception:  # a fault of ours: one line in our log, a 500 to the client
            _log_unexpected()
            self.close_connection = True
            self._error(WireError(500, "the server failed on this request (its log says "
                                  "why)", kind="server_error"))

    def _stream(self, request: ChatRequest) -> None:
        """Server-sent events: text as it is decoded where the client can take it raw (no
        tool call can come back: no tools, or tool_choice none; no stop strings), else at
        the end; tool calls once read back whole."""
        completion_id, model = new_completion_id(), self.service.model_name
        live = (not request.tools or request.tool_choice == "none") and not request.stop
        started = False
        streamed: list[str] = []

        def on_text(text: str) -> None:
            nonlocal started
            if not started:
                self._begin_events()
                self._event(chunk(completion_id, model, {"role": "assistant", "content": ""}))
                started = True
            if live and text:
                streamed.append(text)
                self._event(chunk(completion_id, model, {"content": text}))

        try:
            served = self.service.complete(request, on_text)
        except WireError:
            if started:  # headers are gone: end the stream, the step was not made
                self._end_events()
                return
            raise
        # decoded whole: recorded before the last chunks, so a client that leaves during them
        # loses nothing and one that asks again at once cannot overtake the record
        self.service.record(served)
        if not started:
            on_text("")
        # what was not streamed as it was decoded (all of it where the text is held back, or
        # an engine that answers whole without calling back) follows in one chunk
        rest = _unstreamed(served.answer.content or "", "".join(streamed))
        if rest:
            self._event(chunk(completion_id, model, {"content": rest}))
        for part in final_chunks(served.gen, served.answer, completion_id, model, request):
            self._event(part)
        self._end_events()

    # -- framing --------------------------------------------------------------------------
    def _body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            raise WireError(411, "a Content-Length header is required")
        if int(length) > MAX_BODY_BYTES:
            self.close_connection = True
            raise WireError(413, f"the body is over {MAX_BODY_BYTES >> 20} MiB")
        return self.rfile.read(int(length))

    def _drain_body(self) -> None:
        length = self.headers.get("Content-Length")
        if length and length.isdigit() and int(length) <= MAX_BODY_BYTES:
            self.rfile.read(int(length))
        else:
            self.close_connection = True

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, exc: WireError) -> None:
        try:
            self._json(exc.status, exc.body())
        except _CLIENT_GONE:
            self.close_connection = True

    def _begin_events(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _event(self, body: dict[str, Any] | str) -> None:
        payload = body if isinstance(body, str) else json.dumps(body)
        self._write_chunk(f"data: {payload}\n\n".encode())

    def _end_events(self) -> None:
        self._event("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        try:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
        except _CLIENT_GONE as exc:
            raise ClientGone() from exc


class _OneLineErrors:
    """A handler's fault as one line in our log, never socketserver's traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        _log_unexpected()


class _TcpServer(_OneLineErrors, ThreadingHTTPServer):
    pass


class _UnixServer(_OneLineErrors, socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    pass


def _log_unexpected() -> None:
    """A fault of ours in a handler: one line on the server's stderr (the client got a 500
    or a closed connection); a client that went away is not worth a line."""
    exc = sys.exc_info()[1]
    if exc is None or isinstance(exc, (*_CLIENT_GONE, ClientGone)):
        return
    where = traceback.extract_tb(exc.__traceback__)[-1]
    print(f"edgeagent serve: request failed: {type(exc).__name__}: {exc} "
          f"({Path(where.filename).name}:{where.lineno})", file=sys.stderr, flush=True)


class ChatServer:
    """The service on 127.0.0.1:port (0: any free port) and, if given, a Unix socket path,
    each in its own thread until `close()`."""

    def __init__(self, service: ChatService, port: int = 0, host: str = "127.0.0.1",
                 unix_socket: Path | None = None) -> None:
        handler = type("Handler", (_Handler,), {"service": service})
        self.tcp = _TcpServer((host, port), handler)
        self.unix = _UnixServer(str(unix_socket), handler) if unix_socket else None
        self.unix_socket = unix_socket
        self._threads = [threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.1},
                                          daemon=True, name="edgeagent-serve")
                         for s in (self.tcp, self.unix) if s is not None]

    @property
    def port(self) -> int:
        return int(self.tcp.server_address[1])

    @property
    def base_url(self) -> str:
        host = self.tcp.server_address[0]
        return f"http://{host}:{self.port}/v1"

    def start(self) -> ChatServer:
        for thread in self._threads:
            thread.start()
        return self

    def close(self) -> None:
        for server in (self.tcp, self.unix):
            if server is not None:
                server.shutdown()
                server.server_close()
        if self.unix_socket is not None:
            self.unix_socket.unlink(missing_ok=True)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unstreamed(content: str, streamed: str) -> str:
    """The end of `content` the client has not had yet: it had `streamed`, a prefix of it."""
    return content[len(streamed):] if content.startswith(streamed) else ""
