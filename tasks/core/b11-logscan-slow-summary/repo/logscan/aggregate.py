"""Counting: unique visitors, top paths, error rate."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    requests: int
    unique_visitors: int
    top_paths: list  # [(path, count)], most requested first, ties by path
    error_rate: float  # share of 5xx responses, 0.0 for no requests
    bytes_sent: int


def unique_ips(requests):
    """Distinct client IPs, in the order first seen."""
    seen = []
    for r in requests:
        if r.ip not in seen:
            seen.append(r.ip)
    return seen


def top_paths(requests, n=10):
    paths = [r.path for r in requests]
    distinct = []
    for p in paths:
        if p not in distinct:
            distinct.append(p)
    counted = [(p, paths.count(p)) for p in distinct]
    counted.sort(key=lambda pc: (-pc[1], pc[0]))
    return counted[:n]


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
    )
