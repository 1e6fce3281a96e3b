"""Small text helpers."""


def shout(text):
    """Return text in upper case followed by an exclamation mark."""
    return text.lower() + '!'


def whisper(text):
    """Return text in lower case followed by three dots."""
    return text.lower() + '...'
