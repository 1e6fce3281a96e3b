"""numerals: roman numerals and ordinals."""
