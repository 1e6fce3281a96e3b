"""YAML loading for the files users hand us (config, task.yaml, oracle.yaml)."""

from __future__ import annotations

from typing import Any

import yaml


class NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases: none of our files needs them, and nested ones (a
    "billion laughs" bomb) make a tiny file expand into an object graph whose every repr or
    walk (an error message printing the value) takes forever."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"alias *{event.anchor} is not allowed (write the value out)",
                event.start_mark,
            )
        return super().compose_node(parent, index)
