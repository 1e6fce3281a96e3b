"""Shared helpers: money, units, dates, text, validation, CSV."""
