"""Clock-style durations: ``HH:MM:SS`` and ``MM:SS``, as media players and timesheets show.

These are a separate notation from the compact ``1h30m`` form: colon-separated fields,
every field after the first exactly two digits.
"""

import re

_CLOCK = re.compile(r"(?:(\d+):)?(\d+):(\d{2})")


def parse_clock(text: str) -> int:
    """'1:02:03' -> 3723, '02:03' -> 123. Minutes and seconds must be below 60 when an
    hour field is present; without one, minutes may be any size ('90:00' -> 5400)."""
    match = _CLOCK.fullmatch(text.strip())
    if not match:
        raise ValueError(f"cannot parse clock duration {text!r} (expected H:MM:SS or M:SS)")
    hours_text, minutes_text, seconds_text = match.groups()
    minutes, seconds = int(minutes_text), int(seconds_text)
    if seconds >= 60:
        raise ValueError(f"seconds must be below 60 in {text!r}")
    if hours_text is not None:
        if len(minutes_text) != 2 or minutes >= 60:
            raise ValueError(f"minutes must be two digits below 60 in {text!r}")
        return int(hours_text) * 3600 + minutes * 60 + seconds
    return minutes * 60 + seconds


def format_clock(seconds: int, always_hours: bool = False) -> str:
    """3723 -> '1:02:03'; 123 -> '2:03' (or '0:02:03' with always_hours)."""
    if seconds < 0:
        raise ValueError("negative duration")
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours or always_hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"
