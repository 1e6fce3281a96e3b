"""MLPerf's own row schema (tests/fixtures/mlperf, vendored from mlcommons/endpoints): the
rows of a JSONL file it rejects, for the tests that check every file we write."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from paths import FIXTURES

SCHEMA_PATH = FIXTURES / "mlperf" / "agentic_inference_dataset_schema.json"
VALIDATOR = jsonschema.Draft7Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def row_errors(row: dict) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(row)]


def schema_errors(path: Path) -> list[str]:
    """`FILE:LINE: message` for every row the schema rejects (empty: the file is valid)."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            out += [f"{path}:{n}: {message}" for message in row_errors(json.loads(line))]
    return out
