"""Sales and refunds bookkeeping."""
