"""Parse sizes typed in configuration files, such as 512, 10K, 1.5M or 2GiB."""

MULTIPLIERS = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KB": 1024,
    "KIB": 1024,
    "M": 1024**2,
    "MB": 1024**2,
    "MIB": 1024**2,
    "G": 1024**3,
    "GB": 1024**3,
    "GIB": 1024**3,
}


def split_number(text):
    """Split '1.5M' into ('1.5', 'M'): the leading number and the rest."""
    index = 0
    while index < len(text) and (text[index].isdigit() or text[index] == "."):
        index += 1
    return text[:index], text[index:].strip()


def parse_size(text):
    """The number of bytes that `text` stands for, rounded down to whole bytes.

    Units are case-insensitive and always binary (K means 1024 bytes).
    """
    cleaned = text.strip().replace("_", "")
    number, unit = split_number(cleaned)
    if not number or number.count(".") > 1:
        raise ValueError(f"not a size: {text!r}")
    unit = unit.upper()
    if unit not in MULTIPLIERS:
        raise ValueError(f"unknown unit in {text!r}")
    return int(float(number) * MULTIPLIERS[unit])


def parse_many(texts):
    """Parse a list of sizes; the error names the first bad entry by position."""
    sizes = []
    for position, text in enumerate(texts, start=1):
        try:
            sizes.append(parse_size(text))
        except ValueError as error:
            raise ValueError(f"entry {position}: {error}") from None
    return sizes
