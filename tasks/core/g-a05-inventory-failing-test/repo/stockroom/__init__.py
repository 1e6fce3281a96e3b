"""Back-room inventory."""
