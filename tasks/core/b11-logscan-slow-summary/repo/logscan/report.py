"""Summary as text."""


def _peak(peak):
    return "-" if peak is None else f"{peak[0]} ({peak[1]} requests)"


def render(summary):
    lines = [
        f"requests:        {summary.requests}",
        f"unique visitors: {summary.unique_visitors}",
        f"error rate:      {summary.error_rate:.1%}",
        f"bytes sent:      {summary.bytes_sent}",
        f"peak minute:     {_peak(summary.peak_minute)}",
        "top paths:",
    ]
    lines += [f"  {count:>7}  {path}" for path, count in summary.top_paths]
    return "\n".join(lines)
