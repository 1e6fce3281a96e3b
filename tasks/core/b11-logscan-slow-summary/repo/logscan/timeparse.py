"""Common-log-format timestamps: '01/May/2024:10:00:07 +0000'."""

import datetime as _dt

_FORMAT = "%d/%b/%Y:%H:%M:%S %z"


def parse_time(text):
    return _dt.datetime.strptime(text, _FORMAT)


def minute_of(text):
    """'01/May/2024:10:00:07 +0000' -> '2024-05-01 10:00' (UTC)."""
    moment = parse_time(text).astimezone(_dt.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M")
