"""clinic services."""
