import unittest

from tollgate.plazas import Plaza
from tollgate.register import check_register, from_csv, to_csv

SAMPLE = [Plaza("X1-01", "Alpha", "X1", 0.0, 1), Plaza("X1-02", "Beta", "X1", 4.5, 1),
          Plaza("X1-03", "Gamma", "X1", 9.0, 2)]


class TestRegister(unittest.TestCase):
    def test_csv_round_trip(self):
        self.assertEqual(from_csv(to_csv(SAMPLE)), SAMPLE)

    def test_bad_row_names_its_line(self):
        with self.assertRaisesRegex(ValueError, "line 2"):
            from_csv("code,name,road,km,zone\nX1-01,Alpha,X1,zero,1\n")

    def test_check_register(self):
        self.assertEqual(check_register(SAMPLE), [])
        bad = SAMPLE[:2] + [Plaza("X1-03", "Gamma", "X1", 2.0, 1)]
        self.assertEqual(len(check_register(bad)), 1)
