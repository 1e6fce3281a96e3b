"""Prices, discounts, VAT and invoices."""
