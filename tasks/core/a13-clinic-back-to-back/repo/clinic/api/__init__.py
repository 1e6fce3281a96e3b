"""clinic api."""
