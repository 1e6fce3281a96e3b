"""Run-length encoding of strings: 'aaab' <-> [('a', 3), ('b', 1)]."""


def encode(text):
    runs = []
    for char in text:
        if runs and runs[-1][0] == char:
            runs[-1] = (char, runs[-1][1] + 1)
        else:
            runs.append((char, 1))
    return runs


def decode(runs):
    return "".join(char for char, count in runs)
