"""depot models."""
