"""Pagination helpers."""
