"""Stock-keeping unit codes.

A sku is one to three capital letters followed by one to five digits (``A1``, ``BRD204``).
Scanners and spreadsheets add noise (lowercase, spaces, a leading ``#``), so codes are
normalised before they are checked.
"""

import re

_SKU = re.compile(r"[A-Z]{1,3}[0-9]{1,5}")


class BadSku(ValueError):
    """A code that is not a valid sku, even after normalising."""


def normalize_sku(raw: str) -> str:
    """' #brd-204 ' -> 'BRD204'; raises BadSku if the result is not a valid sku."""
    code = raw.strip().lstrip("#").replace("-", "").replace(" ", "").upper()
    if not _SKU.fullmatch(code):
        raise BadSku(f"{raw!r} is not a sku (expected letters then digits, e.g. BRD204)")
    return code


def is_sku(raw: str) -> bool:
    try:
        normalize_sku(raw)
    except BadSku:
        return False
    return True


def sku_prefix(sku: str) -> str:
    """The letter part, which names the aisle: 'BRD204' -> 'BRD'."""
    return normalize_sku(sku).rstrip("0123456789")
