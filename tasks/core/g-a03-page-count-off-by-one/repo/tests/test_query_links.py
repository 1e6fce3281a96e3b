import unittest

from pager.links import link_header, nav_links, page_url
from pager.query import MAX_PER_PAGE, BadPageParameter, PageRequest, parse_page_request


class TestQuery(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(parse_page_request(""), PageRequest(1, 20))

    def test_values_and_offset(self):
        request = parse_page_request("?page=3&per_page=50")
        self.assertEqual(request, PageRequest(3, 50))
        self.assertEqual(request.offset, 100)

    def test_per_page_clamped(self):
        self.assertEqual(parse_page_request("per_page=5000").per_page, MAX_PER_PAGE)

    def test_bad_values(self):
        with self.assertRaisesRegex(BadPageParameter, "page must be a whole number"):
            parse_page_request("page=two")
        with self.assertRaisesRegex(BadPageParameter, "per_page must be at least 1"):
            parse_page_request("per_page=0")


class TestLinks(unittest.TestCase):
    def test_page_url_keeps_filters(self):
        self.assertEqual(page_url("/orders?status=open&page=4", 2), "/orders?status=open&page=2")
        self.assertEqual(page_url("/orders?page=4", 1), "/orders")

    def test_nav_links_middle_and_ends(self):
        links = nav_links("/a", 2, 3)
        self.assertEqual(links, {"first": "/a", "prev": "/a", "next": "/a?page=3",
                                 "last": "/a?page=3"})
        self.assertIsNone(nav_links("/a", 1, 3)["prev"])
        self.assertIsNone(nav_links("/a", 3, 3)["next"])

    def test_link_header(self):
        self.assertEqual(link_header("/a", 1, 2), '</a?page=2>; rel="next", </a?page=2>; rel="last"')
