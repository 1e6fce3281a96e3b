"""Masking personal data before logs are shared in bug reports.

Email addresses, IPv4 addresses and long digit runs (card or phone numbers) are replaced by
fixed placeholders, so redacted logs can still be grouped and deduplicated.
"""

import re

_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_IPV4 = re.compile(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b")
_DIGITS = re.compile(r"\b\d{9,}\b")

PLACEHOLDERS = {"email": "<email>", "ip": "<ip>", "number": "<number>"}


def redact(line: str, kinds: tuple[str, ...] = ("email", "ip", "number")) -> str:
    """The line with each selected kind of personal data replaced by its placeholder."""
    unknown = [k for k in kinds if k not in PLACEHOLDERS]
    if unknown:
        raise ValueError(f"unknown redaction kind(s): {', '.join(unknown)}")
    # Emails first: their digits and dots must not be mistaken for numbers or addresses.
    if "email" in kinds:
        line = _EMAIL.sub(PLACEHOLDERS["email"], line)
    if "ip" in kinds:
        line = _IPV4.sub(PLACEHOLDERS["ip"], line)
    if "number" in kinds:
        line = _DIGITS.sub(PLACEHOLDERS["number"], line)
    return line


def redact_lines(lines: list[str], kinds: tuple[str, ...] = ("email", "ip", "number")) -> list[str]:
    return [redact(line, kinds) for line in lines]
