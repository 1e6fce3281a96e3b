"""tollgate: billing for a toll road network."""
