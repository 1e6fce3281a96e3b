import unittest

from sizefmt.humanize import human, human_delta, table


class TestHuman(unittest.TestCase):
    def test_bytes(self):
        self.assertEqual(human(0), "0 B")
        self.assertEqual(human(1023), "1023 B")

    def test_larger_units(self):
        self.assertEqual(human(1536), "1.5 KiB")
        self.assertEqual(human(5 * 1024**3), "5.0 GiB")

    def test_negative(self):
        self.assertEqual(human(-2048), "-2.0 KiB")

    def test_rejects_float(self):
        with self.assertRaises(TypeError):
            human(1.5)


class TestDelta(unittest.TestCase):
    def test_signs(self):
        self.assertEqual(human_delta(0, 2048), "+2.0 KiB")
        self.assertEqual(human_delta(1024, 512), "-512 B")
        self.assertEqual(human_delta(7, 7), "0 B")

    def test_table(self):
        text = table([("photos", 2048)])
        self.assertEqual(text.splitlines()[1].split(), ["photos", "2.0", "KiB"])
