"""Plain-text tables."""

from .render import render

__all__ = ["render"]
