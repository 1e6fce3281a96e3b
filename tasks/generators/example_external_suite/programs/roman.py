"""Roman numerals."""

_VALUES = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]


def to_roman(number):
    if not 0 < number < 4000:
        raise ValueError("roman numerals cover 1..3999")
    out = []
    for value, letters in _VALUES:
        if number >= value:
            out.append(letters)
            number -= value
    return "".join(out)
