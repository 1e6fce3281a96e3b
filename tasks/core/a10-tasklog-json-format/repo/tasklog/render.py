"""How `list` shows tasks."""

from .store import Task


def render_table(tasks: list[Task]) -> str:
    if not tasks:
        return "no tasks"
    width = max(len(t.title) for t in tasks)
    rows = []
    for t in tasks:
        tags = ", ".join(t.tags)
        rows.append(f"{t.id:>3}  {'done' if t.done else '    '}  {t.title:<{width}}  {tags}".rstrip())
    return "\n".join(rows)
