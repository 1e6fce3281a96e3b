"""A storage quota: how much of it a backup set uses."""

from dataclasses import dataclass

from sizefmt.humanize import human


@dataclass(frozen=True)
class Quota:
    limit_bytes: int
    used_bytes: int = 0

    def __post_init__(self):
        if self.limit_bytes <= 0:
            raise ValueError("limit_bytes must be positive")
        if self.used_bytes < 0:
            raise ValueError("used_bytes must not be negative")

    @property
    def remaining(self):
        """Bytes still free; never below zero."""
        return max(self.limit_bytes - self.used_bytes, 0)

    @property
    def percent_used(self):
        """Share of the limit in use, in percent, rounded to one decimal."""
        return round(100 * self.used_bytes / self.limit_bytes, 1)

    def over_limit(self):
        return self.used_bytes > self.limit_bytes

    def add(self, n_bytes):
        """A new quota with `n_bytes` more in use."""
        return Quota(self.limit_bytes, self.used_bytes + n_bytes)

    def summary(self):
        return f"{human(self.used_bytes)} of {human(self.limit_bytes)} ({self.percent_used}%)"
