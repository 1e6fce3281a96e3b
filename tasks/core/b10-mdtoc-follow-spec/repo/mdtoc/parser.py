"""Finding the headings of a Markdown document (docs/spec.md, "Headings")."""

import re
from dataclasses import dataclass

_ATX = re.compile(r"^(#{1,6}) +(.*?)[ #]*$")


@dataclass(frozen=True)
class Heading:
    level: int
    title: str
    line: int  # 1-based line number


def headings(text):
    """Every ATX heading of the document, in order."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _ATX.match(line)
        if match:
            found.append(Heading(len(match.group(1)), match.group(2).strip(), number))
    return found
