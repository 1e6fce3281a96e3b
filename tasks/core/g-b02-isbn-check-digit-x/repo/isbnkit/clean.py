def strip_separators(text):
    """'0-306 40615-2' -> '0306406152'."""
    return text.replace("-", "").replace(" ", "").strip()
