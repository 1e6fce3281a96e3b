"""Numbers in English words, for cheques and formal chapter titles.

    spell(42) == "forty-two"
    spell(1905) == "one thousand nine hundred five"

British "and" ("one hundred and five") is not used; the style guide asks for the plain form.
"""

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
         "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
         "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = [(1_000_000, "million"), (1_000, "thousand")]

MAX = 999_999_999


def _below_thousand(n):
    words = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words.append(f"{_ONES[hundreds]} hundred")
    if rest >= 20:
        tens, ones = divmod(rest, 10)
        words.append(_TENS[tens] + (f"-{_ONES[ones]}" if ones else ""))
    elif rest or not hundreds:
        words.append(_ONES[rest])
    return " ".join(words)


def spell(n):
    """A whole number from 0 to MAX in words; raises ValueError outside that range."""
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX:
        raise ValueError(f"spell needs an int from 0 to {MAX}, got {n!r}")
    if n == 0:
        return "zero"
    words = []
    for size, name in _SCALES:
        count, n = divmod(n, size)
        if count:
            words.append(f"{_below_thousand(count)} {name}")
    if n:
        words.append(_below_thousand(n))
    return " ".join(words)


def spell_ordinal(n):
    """'first', 'second', 'twenty-third', 'one hundredth'."""
    words = spell(n)
    irregular = {"one": "first", "two": "second", "three": "third", "five": "fifth",
                 "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
    head, sep, last = words.rpartition(" ")
    prefix, dash, word = last.rpartition("-")
    if word in irregular:
        word = irregular[word]
    elif word.endswith("y"):
        word = word[:-1] + "ieth"
    else:
        word += "th"
    return head + sep + prefix + dash + word
