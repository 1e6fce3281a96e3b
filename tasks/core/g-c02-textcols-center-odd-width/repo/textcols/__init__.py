"""textcols: fixed-width text for terminal reports (wrapping, columns, boxes)."""

from textcols.box import box
from textcols.columns import columns
from textcols.lists import bullets, numbered
from textcols.pad import center, right
from textcols.wrap import shorten, wrap

__all__ = ["box", "bullets", "center", "columns", "numbered", "right", "shorten", "wrap"]
