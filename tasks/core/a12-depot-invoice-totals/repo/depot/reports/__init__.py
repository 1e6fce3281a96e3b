"""depot reports."""
