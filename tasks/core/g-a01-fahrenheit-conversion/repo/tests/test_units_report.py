import unittest

from thermo.report import report_lines
from thermo.units import format_temperature, normalize_unit


class TestUnits(unittest.TestCase):
    def test_normalize(self):
        self.assertEqual(normalize_unit(" Celsius "), "C")
        self.assertEqual(normalize_unit("f"), "F")
        with self.assertRaisesRegex(ValueError, "unknown unit"):
            normalize_unit("rankine")

    def test_format(self):
        self.assertEqual(format_temperature(21.456), "21.5 °C")
        self.assertEqual(format_temperature(300, "kelvin", 0), "300 K")


class TestReport(unittest.TestCase):
    def test_report(self):
        text = "# station: roof\n2024-01-05T01:00, -2\n2024-01-05T02:00, 4\n"
        self.assertEqual(report_lines(text), [
            "roof: 1 day(s)",
            "2024-01-05  min -2.0 °C  max 4.0 °C  mean 1.0 °C  frost 1h",
        ])
