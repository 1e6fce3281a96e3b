"""A small table type the CLI prints; reports build these, never strings directly."""

from __future__ import annotations

from dataclasses import dataclass, field

from fleetops.util.text import pad


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    align: dict[str, str] = field(default_factory=dict)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.title}: row has {len(cells)} cells, not {len(self.columns)}")
        self.rows.append([str(c) for c in cells])

    def render(self) -> str:
        widths = [len(c) for c in self.columns]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]
        def line(cells: list[str]) -> str:
            return "  ".join(
                pad(c, w, self.align.get(col, "left"))
                for c, w, col in zip(cells, widths, self.columns)
            ).rstrip()
        out = [self.title, line(self.columns), line(["-" * w for w in widths])]
        out += [line(row) for row in self.rows]
        return "\n".join(out)
