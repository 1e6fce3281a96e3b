"""Check-up reminders."""
