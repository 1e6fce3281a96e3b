"""depot repositories."""
