"""Identifier case conversion."""

import re

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name):
    """'HTTPServerError' -> 'http_server_error'; 'already_snake' stays."""
    name = name.replace("-", "_").replace(" ", "_")
    return _BOUNDARY.sub("_", name).lower()


def camel_case(name):
    """'http_server_error' -> 'httpServerError'."""
    parts = [p for p in re.split(r"[_\-\s]+", name) if p]
    if not parts:
        return ""
    return parts[0].lower() + "".join(p.capitalize() for p in parts[1:])
