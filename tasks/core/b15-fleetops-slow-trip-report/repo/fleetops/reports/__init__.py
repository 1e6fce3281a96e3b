"""Report tables for the CLI."""
