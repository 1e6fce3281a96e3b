"""Summary as text."""


def render(summary):
    lines = [
        f"requests:        {summary.requests}",
        f"unique visitors: {summary.unique_visitors}",
        f"error rate:      {summary.error_rate:.1%}",
        f"bytes sent:      {summary.bytes_sent}",
        "top paths:",
    ]
    lines += [f"  {count:>7}  {path}" for path, count in summary.top_paths]
    return "\n".join(lines)
