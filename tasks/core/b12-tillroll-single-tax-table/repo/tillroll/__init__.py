"""tillroll: point-of-sale arithmetic in integer cents."""
