"""Retry settings read from a service's configuration.

A config section looks like::

    {"attempts": 5, "base": 0.5, "max_delay": 30, "jitter": "full"}

Every key is optional; unknown keys are an error so typos do not go unnoticed.
"""

from dataclasses import dataclass, fields

from .jitter import STRATEGIES


class PolicyError(ValueError):
    """A retry setting that is missing, mistyped or out of range; the message names the key."""


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    base: float = 1.0
    max_delay: float = 60.0
    jitter: str = "full"

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise PolicyError("retry.attempts must be at least 1")
        if self.base <= 0:
            raise PolicyError("retry.base must be positive")
        if self.max_delay < self.base:
            raise PolicyError("retry.max_delay must be at least retry.base")
        if self.jitter not in STRATEGIES:
            raise PolicyError(f"retry.jitter must be one of {', '.join(STRATEGIES)}")


def policy_from_config(section: dict) -> RetryPolicy:
    """A RetryPolicy from a config mapping, checking key names and value types."""
    known = {f.name: f.type for f in fields(RetryPolicy)}
    unknown = sorted(set(section) - set(known))
    if unknown:
        raise PolicyError(f"unknown retry setting(s): {', '.join(unknown)}")
    values = {}
    for key, value in section.items():
        if key == "jitter":
            if not isinstance(value, str):
                raise PolicyError("retry.jitter must be a string")
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise PolicyError(f"retry.{key} must be a number")
        elif key == "attempts" and not isinstance(value, int):
            raise PolicyError("retry.attempts must be a whole number")
        values[key] = value
    return RetryPolicy(**values)
