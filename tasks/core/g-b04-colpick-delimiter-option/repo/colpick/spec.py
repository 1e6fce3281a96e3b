"""Column specs with renames: 'name,city:Town' picks name and city, printing city as Town."""


def parse_spec(text):
    """'name, city:Town' -> [('name', 'name'), ('city', 'Town')] (source, output name)."""
    columns = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        source, _, output = part.partition(":")
        source, output = source.strip(), output.strip() or source.strip()
        if not source:
            raise ValueError(f"empty column name in {text!r}")
        columns.append((source, output))
    if not columns:
        raise ValueError("no columns given")
    return columns


def sources(spec):
    return [source for source, _ in spec]


def rename_header(header, spec):
    """The header row with the output names of the spec (header is in spec order)."""
    names = dict(spec)
    return [names.get(col, col) for col in header]
