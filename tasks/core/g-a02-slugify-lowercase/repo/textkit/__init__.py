"""Text utilities for the site generator."""
