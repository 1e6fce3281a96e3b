"""wordfreq: count the most frequent words in text files."""

from wordfreq.counting import count_words, top_words

__all__ = ["count_words", "top_words"]
