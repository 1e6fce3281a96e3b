"""Opening hours, conflicts, free slots and booking."""
