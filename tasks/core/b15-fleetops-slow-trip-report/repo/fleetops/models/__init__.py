"""One dataclass per record kind."""
