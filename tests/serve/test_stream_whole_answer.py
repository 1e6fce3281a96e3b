"""A streamed request to the endpoint gets the whole answer even from an engine that answers
whole, without calling back per token (a scripted engine, or any engine that cannot stream):
aider streams by default, and an empty stream read as "Empty response received from LLM"."""

from __future__ import annotations

import pytest
from scripted import ScriptedEngine

from edgeagent.engine.base import Message
from edgeagent.harness.agent_endpoint import AgentHost

openai = pytest.importorskip("openai")

ANSWER = "calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n"


class WholeAnswerEngine(ScriptedEngine):
    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        return ANSWER, "stop"


class Events:
    def __init__(self) -> None:
        self.events: list[object] = []

    def emit(self, event: object) -> None:
        self.events.append(event)


@pytest.mark.slow  # the openai client runs `uname -p`
def test_a_stream_from_an_engine_that_answers_whole_carries_the_answer() -> None:
    events = Events()
    with AgentHost(WholeAnswerEngine(), events, "m") as host:
        client = openai.OpenAI(base_url=host.base_url, api_key="x", max_retries=0)
        messages = [{"role": "user", "content": "fix add"}]

        def agent(cancel: object) -> tuple[str, str]:
            stream = client.chat.completions.create(model="m", messages=messages, stream=True)
            streamed = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
            whole = client.chat.completions.create(model="m", messages=messages)
            return streamed, whole.choices[0].message.content or ""

        (streamed, whole), tally = host.recorder.run_agent("t", 0, "title", "issue", None, agent)
    assert streamed == ANSWER == whole
    assert tally.steps == 2
    assert sum(type(e).__name__ == "StepRecord" for e in events.events) == 2
