"""Finding tasks by words in their title.

A query is a list of words; a task matches when every word occurs in its title
(case-insensitive, as a prefix of a title word, so "rep" finds "write report"). Words
starting with ``#`` match tags exactly instead.
"""

from .store import Task


def _matches(task: Task, word: str) -> bool:
    if word.startswith("#"):
        return word[1:] in task.tags
    word = word.lower()
    return any(title_word.lower().startswith(word) for title_word in task.title.split())


def search(tasks: list[Task], query: str) -> list[Task]:
    """Tasks matching every word of the query, in file order; an empty query matches all."""
    words = query.split()
    return [t for t in tasks if all(_matches(t, w) for w in words)]


def find_by_id(tasks: list[Task], task_id: int) -> Task | None:
    for task in tasks:
        if task.id == task_id:
            return task
    return None
