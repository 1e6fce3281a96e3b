"""Counting: unique visitors, top paths, traffic per minute, error rate."""

from collections import Counter
from dataclasses import dataclass

from logscan.timeparse import minute_of


@dataclass(frozen=True)
class Summary:
    requests: int
    unique_visitors: int
    top_paths: list  # [(path, count)], most requested first, ties by path
    error_rate: float  # share of 5xx responses, 0.0 for no requests
    bytes_sent: int
    peak_minute: tuple | None  # (minute, count) of the busiest minute, earliest on ties


def unique_ips(requests):
    """Distinct client IPs, in the order first seen."""
    return list(dict.fromkeys(r.ip for r in requests))


def top_paths(requests, n=10):
    counted = list(Counter(r.path for r in requests).items())
    counted.sort(key=lambda pc: (-pc[1], pc[0]))
    return counted[:n]


def per_minute(requests):
    """[(minute, count)] for every minute that has requests, in time order."""
    minutes = sorted({minute_of(r.time) for r in requests})
    return [(m, sum(1 for r in requests if minute_of(r.time) == m)) for m in minutes]


def peak_minute(requests):
    counts = per_minute(requests)
    if not counts:
        return None
    return max(counts, key=lambda mc: (mc[1], [-ord(ch) for ch in mc[0]]))


def error_rate(requests):
    if not requests:
        return 0.0
    errors = sum(1 for r in requests if r.status >= 500)
    return errors / len(requests)


def summarize(requests, top=10):
    requests = list(requests)
    return Summary(
        requests=len(requests),
        unique_visitors=len(unique_ips(requests)),
        top_paths=top_paths(requests, top),
        error_rate=error_rate(requests),
        bytes_sent=sum(r.size for r in requests),
        peak_minute=peak_minute(requests),
    )
