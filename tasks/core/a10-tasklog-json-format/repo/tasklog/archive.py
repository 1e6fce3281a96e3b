"""Moving finished tasks out of the main file.

Long-running lists fill up with done tasks; `archive` appends them to a second file and keeps
only the pending ones. Task ids are kept, so next_id never reuses an archived id as long as
the archive is passed to it.
"""

from pathlib import Path

from . import store
from .store import Task


def split_done(tasks: list[Task]) -> tuple[list[Task], list[Task]]:
    """(pending, done), each in file order."""
    return [t for t in tasks if not t.done], [t for t in tasks if t.done]


def archive(task_file: Path, archive_file: Path) -> int:
    """Move done tasks from task_file to the end of archive_file; returns how many moved."""
    pending, done = split_done(store.load(task_file))
    if not done:
        return 0
    archived = store.load(archive_file)
    store.save(archive_file, archived + done)
    store.save(task_file, pending)
    return len(done)


def next_id_with_archive(tasks: list[Task], archive_file: Path) -> int:
    """The next free id, counting ids already used in the archive."""
    return store.next_id(tasks + store.load(archive_file))
