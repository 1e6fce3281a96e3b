"""depot services."""
