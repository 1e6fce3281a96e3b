import unittest

from tollgate.plazas import PLAZAS, lookup, on_road


class TestPlazas(unittest.TestCase):
    def test_lookup_by_code_and_name(self):
        self.assertEqual(lookup("A1-01").name, "Yarrow Hill")
        self.assertEqual(lookup("YARROW HILL").code, "A1-01")
        with self.assertRaises(KeyError):
            lookup("Nowhere")

    def test_roads_in_km_order(self):
        kms = [p.km for p in on_road("A1")]
        self.assertEqual(kms, sorted(kms))
        self.assertEqual(len(PLAZAS), 384)
