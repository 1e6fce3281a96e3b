"""Business rules, one module per record kind."""
