import unittest

from logscan.aggregate import per_minute, summarize, top_paths, unique_ips
from logscan.filters import by_status
from logscan.parse import parse_line, parse_lines

LINES = [
    '10.0.0.1 - - [01/May/2024:10:00:00 +0000] "GET /index.html HTTP/1.1" 200 512',
    '10.0.0.2 - - [01/May/2024:10:00:01 +0000] "GET /about?x=1 HTTP/1.1" 200 128',
    '10.0.0.1 - - [01/May/2024:10:00:02 +0000] "POST /api/login HTTP/1.1" 500 -',
    "garbage line",
    '10.0.0.3 - - [01/May/2024:10:00:03 +0000] "GET /index.html HTTP/1.1" 304 0',
]


class TestLogscan(unittest.TestCase):
    def test_parse(self):
        r = parse_line(LINES[1])
        self.assertEqual((r.ip, r.path, r.status, r.size), ("10.0.0.2", "/about", 200, 128))

    def test_summary(self):
        s = summarize(parse_lines(LINES))
        self.assertEqual((s.requests, s.unique_visitors, s.bytes_sent), (4, 3, 640))
        self.assertEqual(s.top_paths[0], ("/index.html", 2))
        self.assertAlmostEqual(s.error_rate, 0.25)

    def test_helpers(self):
        reqs = list(parse_lines(LINES))
        self.assertEqual(unique_ips(reqs), ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
        self.assertEqual(top_paths(reqs, 1), [("/index.html", 2)])
        self.assertEqual(len(by_status(reqs, "5xx")), 1)
        self.assertEqual(per_minute(reqs), [("2024-05-01 10:00", 4)])


if __name__ == "__main__":
    unittest.main()
