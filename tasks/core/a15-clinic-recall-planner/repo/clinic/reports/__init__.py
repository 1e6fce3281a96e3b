"""clinic reports."""
