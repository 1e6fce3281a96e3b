"""depot api."""
