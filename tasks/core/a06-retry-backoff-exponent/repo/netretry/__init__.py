"""Retries with exponential backoff."""
