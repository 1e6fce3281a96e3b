"""Tables from rows of dicts."""

from .cells import pad, to_text


def render(rows: list[dict], columns: list[str] | None = None,
           align: dict[str, str] | None = None) -> str:
    if not rows:
        return ""
    cols = list(columns or rows[0].keys())
    aligns = {c: "left" for c in cols}
    cells = [[to_text(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    header = " | ".join(pad(c, w, aligns[c]) for c, w in zip(cols, widths))
    rule = "-+-".join("-" * w for w in widths)
    body = [" | ".join(pad(v, w, aligns[c]) for v, c, w in zip(row, cols, widths)) for row in cells]
    return "\n".join(line.rstrip() for line in [header, rule, *body])
