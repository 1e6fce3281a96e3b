import unittest

from numerals.spell import MAX, spell, spell_ordinal


class TestSpell(unittest.TestCase):
    def test_small(self):
        self.assertEqual([spell(n) for n in (0, 7, 13, 20, 42, 99)],
                         ["zero", "seven", "thirteen", "twenty", "forty-two", "ninety-nine"])

    def test_hundreds_and_thousands(self):
        self.assertEqual(spell(105), "one hundred five")
        self.assertEqual(spell(1905), "one thousand nine hundred five")
        self.assertEqual(spell(2_000_017), "two million seventeen")
        self.assertEqual(spell(MAX).split()[0:2], ["nine", "hundred"])

    def test_out_of_range(self):
        for bad in (-1, MAX + 1, 2.5, True):
            with self.assertRaises(ValueError):
                spell(bad)

    def test_ordinals(self):
        self.assertEqual([spell_ordinal(n) for n in (1, 2, 3, 5, 12, 20, 23, 100)],
                         ["first", "second", "third", "fifth", "twelfth", "twentieth",
                          "twenty-third", "one hundredth"])
