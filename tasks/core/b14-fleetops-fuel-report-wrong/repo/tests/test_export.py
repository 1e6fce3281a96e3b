import json
import unittest

from fleetops.errors import FleetError
from fleetops.reports import export
from fleetops.reports.base import Table


def sample_table():
    table = Table("Parts | stock", ["part", "units"], align={"units": "right"})
    table.add("PRT-0001", 4)
    table.add("brake pad, front", 12)
    return table


class TestExport(unittest.TestCase):
    def test_csv_round_trip(self):
        table = sample_table()
        text = export.to_csv(table)
        self.assertEqual(text.splitlines()[0], "part,units")
        self.assertIn('"brake pad, front",12', text)
        back = export.from_csv(text, table.title)
        self.assertEqual(back.rows, table.rows)
        self.assertEqual(back.columns, table.columns)

    def test_from_csv_errors(self):
        with self.assertRaises(FleetError):
            export.from_csv("", "empty")
        with self.assertRaises(FleetError) as caught:
            export.from_csv("a,b\n1,2\n3\n", "short")
        self.assertIn("line 3", str(caught.exception))

    def test_markdown(self):
        lines = export.to_markdown(sample_table()).splitlines()
        self.assertEqual(lines[0], "### Parts | stock")
        self.assertEqual(lines[2], "| part | units |")
        self.assertEqual(lines[3], "| --- | ---: |")
        self.assertEqual(len(lines), 6)
        table = Table("t", ["a"])
        table.add("x|y")
        self.assertIn("x\\|y", export.to_markdown(table))

    def test_json(self):
        data = json.loads(export.to_json(sample_table()))
        self.assertEqual(data["columns"], ["part", "units"])
        self.assertEqual(data["rows"][1], {"part": "brake pad, front", "units": "12"})

    def test_render_as_and_all(self):
        table = sample_table()
        self.assertEqual(export.render_as(table, "text"), table.render())
        with self.assertRaises(FleetError) as caught:
            export.render_as(table, "xlsx")
        self.assertIn("markdown", str(caught.exception))
        both = export.render_all([table, table], "json")
        self.assertEqual(len(json.loads(both)), 2)
        self.assertEqual(export.render_all([table, table], "csv").count("part,units"), 2)


if __name__ == "__main__":
    unittest.main()
