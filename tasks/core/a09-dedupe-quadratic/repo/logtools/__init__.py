"""Plain-text log utilities."""
