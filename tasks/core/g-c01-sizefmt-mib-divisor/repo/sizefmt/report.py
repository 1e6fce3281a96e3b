"""The nightly backup summary: totals, largest files, and sizes per file type."""

from sizefmt.humanize import human


def extension(path):
    """The lower-case extension of a path without the dot, or '' when it has none."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name.lstrip("."):
        return ""
    return name.rsplit(".", 1)[-1].lower()


def total(entries):
    """Sum of the sizes of (path, n_bytes) entries."""
    return sum(n_bytes for _, n_bytes in entries)


def largest(entries, count=3):
    """The `count` biggest entries, biggest first; ties keep path order."""
    ordered = sorted(entries, key=lambda entry: (-entry[1], entry[0]))
    return ordered[:count]


def by_extension(entries):
    """Bytes per extension, as a dict sorted by size, biggest first."""
    sizes = {}
    for path, n_bytes in entries:
        key = extension(path)
        sizes[key] = sizes.get(key, 0) + n_bytes
    return dict(sorted(sizes.items(), key=lambda item: (-item[1], item[0])))


def render(entries):
    """A plain-text summary, one fact per line."""
    lines = [f"files: {len(entries)}", f"total: {human(total(entries))}"]
    for path, n_bytes in largest(entries):
        lines.append(f"  {path}: {human(n_bytes)}")
    for key, n_bytes in by_extension(entries).items():
        lines.append(f"  *.{key or '(none)'}: {human(n_bytes)}")
    return "\n".join(lines)
