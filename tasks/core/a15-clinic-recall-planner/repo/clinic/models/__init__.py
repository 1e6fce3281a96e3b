"""clinic models."""
