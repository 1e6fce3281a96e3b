"""Moving windows over a sensor series: smoothing noisy readings."""

from minstats.errors import StatsError


def _check_window(window):
    if not isinstance(window, int) or window < 1:
        raise StatsError(f"window must be a positive int, got {window!r}")


def moving_sum(values, window):
    """Sums of each run of `window` consecutive values (len(values) - window + 1 of them)."""
    _check_window(window)
    data = list(values)
    if len(data) < window:
        return []
    total = sum(data[:window])
    sums = [total]
    # Slide the window: add the new value, drop the oldest, instead of re-summing each time.
    for i in range(window, len(data)):
        total += data[i] - data[i - window]
        sums.append(total)
    return sums


def moving_average(values, window):
    """Means of each run of `window` consecutive values."""
    return [s / window for s in moving_sum(values, window)]


def exponential_smoothing(values, alpha):
    """s[0] = x[0]; s[i] = alpha * x[i] + (1 - alpha) * s[i-1]. alpha is in (0, 1]."""
    if not 0 < alpha <= 1:
        raise StatsError(f"alpha must be in (0, 1], got {alpha!r}")
    out = []
    for x in values:
        out.append(x if not out else alpha * x + (1 - alpha) * out[-1])
    return out


def differences(values):
    """Changes between consecutive values: [1, 4, 2] -> [3, -2]."""
    data = list(values)
    return [b - a for a, b in zip(data, data[1:])]
