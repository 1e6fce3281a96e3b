"""Where things are, for tests in any folder of tests/ (this folder is on sys.path through
conftest.py, as run_fixture.py is)."""

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
