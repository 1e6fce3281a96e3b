"""Stock levels and allocation."""
