"""A request's sampling that the engine refuses (a temperature above 0 to a server decoding
speculatively, which verifies greedily) is the client's error: 400 naming the parameter, not
a 500, and the server goes on answering."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterator

from scripted import ScriptedEngine

from edgeagent.engine.base import Message
from edgeagent.harness.agent_endpoint import AgentHost


class GreedyOnlyEngine(ScriptedEngine):
    """Refuses sampling as the in-process engine does with a speculator: on entering."""

    def answer(self, call: int, messages: list[Message]) -> tuple[str, str]:
        return "ok", "stop"

    @contextlib.contextmanager
    def sampling_override(self, temperature: float | None = None, top_p: float | None = None,
                          seed: int | None = None) -> Iterator[None]:
        if temperature:
            raise ValueError("this server decodes speculatively (greedy only)")
        yield


class Events:
    def emit(self, event: object) -> None:
        pass


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def test_a_refused_temperature_is_a_400_naming_it_and_greedy_still_answers() -> None:
    with AgentHost(GreedyOnlyEngine(), Events(), "m") as host:
        messages = [{"role": "user", "content": "hi"}]

        def agent(cancel: object) -> list[tuple[int, dict]]:
            return [_post(host.base_url, {"model": "m", "messages": messages,
                                          "temperature": 0.8}),
                    _post(host.base_url, {"model": "m", "messages": messages,
                                          "temperature": 0})]

        (refused, answered), _ = host.recorder.run_agent("t", 0, "title", "issue", None, agent)
    assert refused[0] == 400, refused
    assert refused[1]["error"]["param"] == "temperature"
    assert "greedy only" in refused[1]["error"]["message"]
    assert answered[0] == 200 and answered[1]["choices"][0]["message"]["content"] == "ok"
