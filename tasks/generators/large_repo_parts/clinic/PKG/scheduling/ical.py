"""Export a practitioner's appointments as an iCalendar (RFC 5545) feed.

Only what calendar apps need is written: one VEVENT per appointment with UID, DTSTART,
DTEND, SUMMARY and STATUS. Times are floating local times (no time zone), as the
practice works in one zone.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from ..models.appointment import Appointment
from .conflicts import holds_time

PRODID = "-//PKG//scheduling//EN"
_STATUS = {"booked": "CONFIRMED", "arrived": "CONFIRMED", "done": "CONFIRMED",
           "cancelled": "CANCELLED", "no_show": "CANCELLED"}


def _stamp(day: date, minutes: int) -> str:
    return f"{day:%Y%m%d}T{minutes // 60:02d}{minutes % 60:02d}00"


def _escape(text: str) -> str:
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\n", "\\n"))


def _fold(line: str, limit: int = 75) -> list[str]:
    """Lines longer than 75 octets continue on the next line after one space."""
    out = []
    while len(line.encode()) > limit:
        cut = limit
        while len(line[:cut].encode()) > limit:
            cut -= 1
        out.append(line[:cut])
        line = " " + line[cut:]
    out.append(line)
    return out


def event_lines(a: Appointment) -> list[str]:
    end = a.start_minute + a.duration_min
    lines = [
        "BEGIN:VEVENT",
        f"UID:{a.id}@PKG",
        f"DTSTART:{_stamp(a.day, a.start_minute)}",
        f"DTEND:{_stamp(a.day, end)}",
        f"SUMMARY:{_escape(a.reason)}",
        f"STATUS:{_STATUS.get(a.state, 'TENTATIVE')}",
        "END:VEVENT",
    ]
    return [part for line in lines for part in _fold(line)]


def calendar(appointments: Iterable[Appointment], include_cancelled: bool = False) -> str:
    """The feed as text with CRLF line ends, events in time order."""
    chosen = [a for a in appointments if include_cancelled or holds_time(a)]
    chosen.sort(key=lambda a: (a.day, a.start_minute, a.id))
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}"]
    for a in chosen:
        lines += event_lines(a)
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"
