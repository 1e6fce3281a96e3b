"""deploykit: build deploy plans from config files, environment and flags."""

__version__ = "0.4.1"
