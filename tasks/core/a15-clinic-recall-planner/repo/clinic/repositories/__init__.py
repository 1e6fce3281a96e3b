"""clinic repositories."""
