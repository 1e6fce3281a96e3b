"""Reading and writing the task file."""

import re
from dataclasses import dataclass, field
from pathlib import Path

_LINE = re.compile(r"^\[(?P<mark>[ x])\] (?P<id>\d+) (?P<rest>.*)$")


@dataclass
class Task:
    id: int
    title: str
    done: bool = False
    tags: list[str] = field(default_factory=list)

    def to_line(self) -> str:
        tags = "".join(f" #{t}" for t in self.tags)
        return f"[{'x' if self.done else ' '}] {self.id} {self.title}{tags}"


def parse_line(line: str) -> Task:
    m = _LINE.match(line.rstrip("\n"))
    if not m:
        raise ValueError(f"not a task line: {line!r}")
    words = m.group("rest").split()
    tags = [w[1:] for w in words if w.startswith("#")]
    title = " ".join(w for w in words if not w.startswith("#"))
    return Task(int(m.group("id")), title, m.group("mark") == "x", tags)


def load(path: Path) -> list[Task]:
    if not path.exists():
        return []
    return [parse_line(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def save(path: Path, tasks: list[Task]) -> None:
    path.write_text("".join(t.to_line() + "\n" for t in tasks), encoding="utf-8")


def next_id(tasks: list[Task]) -> int:
    return max((t.id for t in tasks), default=0) + 1
