"""isbnkit: ISBN validation and conversion."""
