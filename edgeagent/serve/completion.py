"""One chat completion through the engine: the request's sampling applied, its tools rendered
by the model's own template, its budget fitted to the context window, the answer read back,
and the generation handed to the recorder. One request at a time (single stream, as a device
serves one agent): the engine lock queues the others.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..agent import native_constraint
from ..engine import ContextOverflow, Engine, EngineError, Generation, Grammar, Message, ToolCall
from .recorder import StepRecorder
from .wire import DEFAULT_MAX_TOKENS, Answer, ChatRequest, WireError, answer_of

_REMEMBERED_ANSWERS = 256


def _answer_key(content: str | None, calls: Sequence[ToolCall]) -> tuple[Any, ...]:
    return (content or "", tuple((c.id, c.name, c.arguments) for c in calls))


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
        # the ids the engine generated for recent answers, by how the client will send them
        # back: spliced in, the next prompt extends the KV cache exactly (re-tokenised text
        # can split differently and cut the reuse short at that turn)
        self._answer_ids: OrderedDict[tuple[Any, ...], tuple[int, ...]] = OrderedDict()

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
            answer = answer_of(gen, request)
            self._remember(gen, answer)
        return Served(gen, answer, wall_start, epoch)

    def _remember(self, gen: Generation, answer: Answer) -> None:
        if answer.content is not None and answer.content != gen.text:
            return  # cut at a stop string: the ids are not the text sent
        self._answer_ids[_answer_key(answer.content, answer.tool_calls)] = gen.tokens
        while len(self._answer_ids) > _REMEMBERED_ANSWERS:
            self._answer_ids.popitem(last=False)

    def _with_ids(self, messages: tuple[Message, ...]) -> list[Message]:
        """The request's messages, its assistant turns that are our answers with their ids."""
        out = []
        for m in messages:
            ids = (self._answer_ids.get(_answer_key(m.content, m.tool_calls or ()))
                   if m.role == "assistant" and m.tokens is None else None)
            out.append(dataclasses.replace(m, tokens=ids) if ids is not None else m)
        return out

    def record(self, served: Served) -> None:
        """Once the answer is decoded, before it is written: the step, held for the agent's
        tool interval (which starts here, a write earlier than the client reads it)."""
        answer = served.answer
        call = answer.tool_calls[0] if answer.tool_calls else None
        args: dict[str, Any] | None = None
        if call is not None:
            with contextlib.suppress(ValueError, RecursionError):
                parsed = call.args
                args = parsed if isinstance(parsed, dict) else None
        self.recorder.record(served.epoch, served.gen, served.wall_start,
                             call.name if call else None, args)

    def _tools(self, request: ChatRequest) -> list[dict[str, Any]] | None:
        """The tools the template renders (with tool_choice none too, as OpenAI and
        llama-server render them: the prompt is the same whatever the choice); none where
        the model's template has no tool-call syntax this engine can read back."""
        if not request.tools:
            return None
        if getattr(self.engine, "tool_family", None) is None:
            return None
        return list(request.tools)

    def _grammar(self, request: ChatRequest, tools: list[dict[str, Any]] | None
                 ) -> Grammar | str | None:
        """A call forced (required, or one named function): the grammar of one call; else
        the request's own constraint (GBNF, or a JSON schema turned into GBNF)."""
        if tools is None or request.tool_choice in ("auto", "none"):
            return self._request_constraint(request)
        if isinstance(request.tool_choice, dict):
            name = request.tool_choice["function"]["name"]
            tools = [t for t in tools if t["function"]["name"] == name]
        return native_constraint(self.engine, tools)

    def _request_constraint(self, request: ChatRequest) -> str | None:
        if request.grammar is not None:
            self._check_gbnf(request.grammar)
            return request.grammar
        if request.json_schema is None:
            return None
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        try:
            return json_schema_to_gbnf(json.dumps(request.json_schema))
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise WireError(400, f"response_format's schema cannot be enforced: {exc}",
                            param="response_format") from exc

    def _check_gbnf(self, gbnf: str) -> None:
        """A grammar llama.cpp cannot parse is the client's error (400), found before any
        decoding (with the engine's own vocabulary, where it offers the check)."""
        chooser = getattr(self.engine, "greedy_chooser", None)
        if chooser is None:
            return
        try:
            chooser(gbnf).close()
        except EngineError as exc:
            raise WireError(400, f"'grammar': {exc}", param="grammar") from exc

    def _generate(self, request: ChatRequest, tools: list[dict[str, Any]] | None,
                  on_text: Callable[[str], None] | None) -> Generation:
        budget = request.max_tokens or self.default_max_tokens
        grammar = self._grammar(request, tools)
        native = {"tools": tools} if tools else {}  # as the loop passes them: native only
        for _ in range(2):
            try:
                return self.engine.generate(self._with_ids(request.messages),
                                            max_tokens=budget,
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
        # a @contextmanager override refuses on entering, not when called: enter inside the try
        with contextlib.ExitStack() as stack:
            try:
                stack.enter_context(override(**fields))
            except ValueError as exc:
                raise WireError(400, str(exc), param=next(iter(fields))) from exc
            yield
