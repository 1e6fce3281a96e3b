"""One chat completion through the engine: the request's sampling applied, its tools rendered
by the model's own template, its budget fitted to the context window, the answer read back,
and the generation handed to the recorder. One request at a time (single stream, as a device
serves one agent): the engine lock queues the others.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..agent.native import native_constraint
from ..engine.base import ContextOverflow, Engine, EngineError, Generation, Grammar
from .recorder import StepRecorder
from .wire import DEFAULT_MAX_TOKENS, Answer, ChatRequest, WireError, answer_of


class ClientGone(Exception):
    """The client closed the connection while its answer streamed (not an OSError, so the
    engine's own error handling lets it through and decoding stops at once)."""


@dataclass(frozen=True)
class Served:
    """One request's answer, before it is recorded."""

    gen: Generation
    answer: Answer
    wall_start: float
    epoch: int  # the recorder's task when the request arrived


class ChatService:
    def __init__(self, engine: Engine, recorder: StepRecorder, model_name: str,
                 default_max_tokens: int = DEFAULT_MAX_TOKENS) -> None:
        self.engine = engine
        self.recorder = recorder
        self.model_name = model_name
        self.default_max_tokens = default_max_tokens
        self._lock = threading.Lock()

    def complete(self, request: ChatRequest,
                 on_text: Callable[[str], None] | None = None) -> Served:
        """The answer to one request, recorded as a step once `on_text` has had every token.
        Raises WireError for what the client must change, ClientGone from `on_text`."""
        arrived = time.monotonic_ns()
        with self._lock:  # one generation at a time; the recorder counts tokens with it
            refused = self.recorder.request_started(request.messages, arrived)
            epoch = self.recorder.epoch
            if refused is not None:
                raise WireError(429, refused, code="step_limit_reached",
                                kind="rate_limit_error")
            wall_start = time.time()
            with self._sampling(request):
                gen = self._generate(request, self._tools(request), on_text)
        return Served(gen, answer_of(gen, request), wall_start, epoch)

    def record(self, served: Served) -> None:
        """After the response is written: the step, held for the agent's tool interval."""
        answer = served.answer
        call = answer.tool_calls[0] if answer.tool_calls else None
        args: dict[str, Any] | None = None
        if call is not None:
            with contextlib.suppress(ValueError, RecursionError):
                parsed = call.args
                args = parsed if isinstance(parsed, dict) else None
        self.recorder.record(served.epoch, served.gen, served.wall_start,
                             call.name if call else None, args, None)

    def _tools(self, request: ChatRequest) -> list[dict[str, Any]] | None:
        """The tools the template renders: none for tool_choice none, or where the model's
        template has no tool-call syntax this engine can read back."""
        if not request.tools or request.tool_choice == "none":
            return None
        if getattr(self.engine, "tool_family", None) is None:
            return None
        return list(request.tools)

    def _grammar(self, request: ChatRequest, tools: list[dict[str, Any]] | None
                 ) -> Grammar | None:
        """A call is forced (required, or one named function): the grammar of one call."""
        if tools is None or request.tool_choice == "auto":
            return None
        if isinstance(request.tool_choice, dict):
            name = request.tool_choice["function"]["name"]
            tools = [t for t in tools if t["function"]["name"] == name]
        return native_constraint(self.engine, tools)

    def _generate(self, request: ChatRequest, tools: list[dict[str, Any]] | None,
                  on_text: Callable[[str], None] | None) -> Generation:
        budget = request.max_tokens or self.default_max_tokens
        grammar = self._grammar(request, tools)
        native = {"tools": tools} if tools else {}  # as the loop passes them: native only
        for _ in range(2):
            try:
                return self.engine.generate(list(request.messages), max_tokens=budget,
                                            grammar=grammar, on_token=on_text, **native)
            except ContextOverflow as exc:
                room = exc.limit - (exc.needed - budget)
                if request.max_tokens is None and 0 < room < budget:
                    budget = room  # no budget asked for: whatever the window leaves
                    continue
                raise self._overflow(exc, budget) from exc
            except EngineError as exc:
                raise WireError(500, f"the engine failed: {exc}", kind="server_error") from exc
        raise AssertionError("not reached")

    def _overflow(self, exc: ContextOverflow, budget: int) -> WireError:
        prompt = exc.needed - budget
        message = (f"This model's maximum context length is {exc.limit} tokens. However, "
                   f"you requested {exc.needed} tokens ({prompt} in the messages, {budget} "
                   "in the completion). Please reduce the length of the messages or "
                   "completion.")
        self.recorder.refuse("context_overflow", message)
        return WireError(400, message, param="messages", code="context_length_exceeded")

    @contextlib.contextmanager
    def _sampling(self, request: ChatRequest) -> Iterator[None]:
        """The request's temperature, top_p and seed for this generation alone, where the
        engine can change them per request; the server's settings otherwise."""
        override = getattr(self.engine, "sampling_override", None)
        fields = {k: v for k, v in request.sampling().items() if v is not None}
        if override is None or not fields:
            yield
            return
        try:
            scope = override(**fields)
        except ValueError as exc:
            raise WireError(400, str(exc), param=next(iter(fields))) from exc
        with scope:
            yield
