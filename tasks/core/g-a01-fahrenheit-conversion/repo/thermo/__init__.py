"""Temperature conversion and summary helpers."""

__version__ = "0.3.1"
