"""Consultation fees."""
