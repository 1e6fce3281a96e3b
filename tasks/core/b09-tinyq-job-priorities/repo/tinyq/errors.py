class QueueError(Exception):
    """Misuse of a queue (unknown job kind, empty pop, bad snapshot)."""
