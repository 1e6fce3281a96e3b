"""Selecting requests by status class ('2xx', '4xx', '5xx') or method."""


def status_class(status):
    return f"{status // 100}xx"


def by_status(requests, wanted):
    if wanted not in ("1xx", "2xx", "3xx", "4xx", "5xx"):
        raise ValueError(f"unknown status class {wanted!r}")
    return [r for r in requests if status_class(r.status) == wanted]


def by_method(requests, method):
    return [r for r in requests if r.method == method.upper()]
