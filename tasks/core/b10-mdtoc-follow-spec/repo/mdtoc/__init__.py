"""mdtoc: tables of contents for Markdown files."""

from mdtoc.render import toc

__all__ = ["toc"]
