"""Selecting tasks for `list`."""

from .store import Task


def select(tasks: list[Task], done: bool | None = None, tag: str | None = None) -> list[Task]:
    out = tasks
    if done is not None:
        out = [t for t in out if t.done == done]
    if tag is not None:
        out = [t for t in out if tag in t.tags]
    return out
