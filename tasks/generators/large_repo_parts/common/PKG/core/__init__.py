"""Shared building blocks: errors, ids, money, dates, validation, events, queries."""
