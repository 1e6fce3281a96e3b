"""Opaque cursors for keyset pagination.

Offset pages get slow and unstable on big tables that change while a user scrolls, so the
API also offers cursor pagination: the cursor encodes the sort key of the last item seen, and
the next page starts after it.
"""

import base64
import json


class BadCursor(ValueError):
    """A cursor that was not produced by encode_cursor (truncated, edited or from elsewhere)."""


def encode_cursor(last_key: object) -> str:
    """A URL-safe token for the key of the last item on a page."""
    raw = json.dumps({"k": last_key}, separators=(",", ":"), sort_keys=True).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(token: str) -> object:
    """The key encode_cursor stored in the token."""
    padded = token + "=" * (-len(token) % 4)
    try:
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError):
        raise BadCursor(f"cursor {token!r} is not valid") from None
    if not isinstance(data, dict) or "k" not in data:
        raise BadCursor(f"cursor {token!r} is not valid")
    return data["k"]


def after_cursor(items: list, key, limit: int, cursor: str | None = None) -> tuple[list, str | None]:
    """The next `limit` items (sorted by `key`) after the cursor, and the cursor for the page
    after that (None on the last page)."""
    if limit < 1:
        raise ValueError("limit must be at least 1")
    ordered = sorted(items, key=key)
    if cursor is not None:
        last = decode_cursor(cursor)
        ordered = [item for item in ordered if key(item) > last]
    page = ordered[:limit]
    more = len(ordered) > limit
    return page, (encode_cursor(key(page[-1])) if more else None)
