"""Word frequency counting."""
