"""In-memory stores, one per record kind."""
