"""Progress numbers for the task file: how much is done, per tag and overall."""

from collections import Counter
from dataclasses import dataclass

from .store import Task


@dataclass(frozen=True)
class Progress:
    total: int
    done: int

    @property
    def pending(self) -> int:
        return self.total - self.done

    @property
    def percent(self) -> int:
        """Whole percent done, rounded down; an empty list counts as 100% done."""
        return 100 if self.total == 0 else self.done * 100 // self.total


def progress(tasks: list[Task]) -> Progress:
    return Progress(len(tasks), sum(1 for t in tasks if t.done))


def progress_by_tag(tasks: list[Task]) -> dict[str, Progress]:
    """Progress per tag, tags alphabetically; untagged tasks are not counted here."""
    totals: Counter = Counter()
    done: Counter = Counter()
    for task in tasks:
        for tag in set(task.tags):
            totals[tag] += 1
            done[tag] += task.done
    return {tag: Progress(totals[tag], done[tag]) for tag in sorted(totals)}


def progress_bar(p: Progress, width: int = 20) -> str:
    """'[#####...............] 25%' for a quarter done."""
    if width < 1:
        raise ValueError("width must be at least 1")
    filled = p.percent * width // 100
    return f"[{'#' * filled}{'.' * (width - filled)}] {p.percent}%"
