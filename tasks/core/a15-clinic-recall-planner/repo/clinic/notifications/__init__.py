"""Messages to patients."""
