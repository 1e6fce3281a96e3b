"""Plain-text daily reports for a station log (all values in Celsius)."""

from .readings import by_day, parse_log, station_name
from .stats import daily_summary, frost_hours
from .units import format_temperature


def report_lines(text: str, frost_threshold: float = 0.0) -> list[str]:
    """One header line, then one line per day: min, max, mean and frost hours."""
    name = station_name(text) or "unnamed station"
    days = by_day(parse_log(text))
    lines = [f"{name}: {len(days)} day(s)"]
    for day, values in days.items():
        summary = daily_summary(values)
        lines.append(
            f"{day}  min {format_temperature(summary['min'])}"
            f"  max {format_temperature(summary['max'])}"
            f"  mean {format_temperature(summary['mean'])}"
            f"  frost {frost_hours(values, frost_threshold)}h"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """``python -m thermo.report LOGFILE``: print the daily report of a station log."""
    import sys
    from pathlib import Path

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m thermo.report LOGFILE", file=sys.stderr)
        return 2
    path = Path(args[0])
    if not path.is_file():
        print(f"{path}: no such file", file=sys.stderr)
        return 2
    for line in report_lines(path.read_text(encoding="utf-8")):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
