"""Roman numerals (README.md describes the accepted forms)."""

_VALUES = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"),
    (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
    (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)
_LETTERS = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}


def to_roman(n):
    if not isinstance(n, int) or not 1 <= n <= 3999:
        raise ValueError(f"to_roman needs an int from 1 to 3999, got {n!r}")
    out = []
    for value, letters in _VALUES:
        count, n = divmod(n, value)
        out.append(letters * count)
    return "".join(out)


def from_roman(text):
    cleaned = text.strip()
    if not cleaned or any(ch not in _LETTERS for ch in cleaned):
        raise ValueError(f"not a roman numeral: {text!r}")
    total = 0
    for i, ch in enumerate(cleaned):
        value = _LETTERS[ch]
        if i + 1 < len(cleaned) and _LETTERS[cleaned[i + 1]] > value:
            total -= value
        else:
            total += value
    # Only the canonical spelling is a numeral: 'IIII' and 'VX' are rejected.
    if not 1 <= total <= 3999 or to_roman(total) != cleaned:
        raise ValueError(f"not a canonical roman numeral: {text!r}")
    return total
