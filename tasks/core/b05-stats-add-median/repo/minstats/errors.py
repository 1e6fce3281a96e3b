class StatsError(ValueError):
    """Raised when a statistic is undefined for the given data (e.g. no values)."""
