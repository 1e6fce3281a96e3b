"""GitHub-style anchors (docs/spec.md, "Anchors")."""

import re

_DROP = re.compile(r"[^\w\- ]")


def slug(title):
    """The anchor for one title, ignoring the rest of the document."""
    return _DROP.sub("", title.lower()).replace(" ", "-")


def anchors(titles):
    """Anchors for the titles of one document, in order."""
    return [slug(t) for t in titles]
