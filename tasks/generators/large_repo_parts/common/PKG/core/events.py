"""A synchronous publish/subscribe bus: services publish, reports and audit subscribe."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

Handler = Callable[[str, dict[str, Any]], None]


class EventBus:
    """Handlers run in subscription order; '*' receives every topic."""

    def __init__(self, keep_history: int = 1000) -> None:
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self.history: list[tuple[str, dict[str, Any]]] = []
        self._keep = keep_history

    def subscribe(self, topic: str, handler: Handler) -> None:
        self._handlers[topic].append(handler)

    def unsubscribe(self, topic: str, handler: Handler) -> None:
        if handler in self._handlers.get(topic, []):
            self._handlers[topic].remove(handler)

    def publish(self, topic: str, payload: dict[str, Any]) -> None:
        self.history.append((topic, payload))
        if len(self.history) > self._keep:
            del self.history[: len(self.history) - self._keep]
        for handler in [*self._handlers.get(topic, []), *self._handlers.get("*", [])]:
            handler(topic, payload)

    def topics(self) -> list[str]:
        return sorted({topic for topic, _ in self.history})
