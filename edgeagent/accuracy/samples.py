"""The per-sample record of an accuracy run, accuracy_samples.jsonl: one line per evaluated
sample, appended and fsynced as it completes, holding everything needed to score it again
(the raw output and the native calls the engine read) beside the verdict and its costs.

A sample evaluated twice (its run was killed between its line and its run.db record, and
resumed) has two lines: the last one counts.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..rundir import (
    ACCURACY_SAMPLES_FILE,
    PROVENANCE_FILE,
    read_provenance,
    read_run,
    replace_file,
)


@dataclass(frozen=True)
class SampleResult:
    id: str
    subset: str
    category: str | None  # None: live_relevance, scored apart
    attempt: int
    # completed, or dropped without an answer: context_overflow | engine_error
    status: str
    reason: str | None  # why it was dropped
    raw_output: str | None  # the model's text, as generated
    native_calls: tuple[dict[str, str], ...]  # {"name", "arguments" (JSON text)} as read
    # what MLPerf scores: the structured calls as tool_calls JSON, else the text
    output: str | None
    parsed_calls: tuple[dict[str, Any], ...]  # the calls the AST rule read from `output`
    made_call: bool
    valid: bool
    rule: str | None  # no_call | any_call | ast | no_answer (scoring.Verdict)
    checker_error: tuple[str, ...] = ()
    checker_error_type: str | None = None
    # the generation's costs (run.db has them all, with energy, per sample and phase)
    context_tokens: int | None = None
    decoded_tokens: int | None = None
    ttft_ms: float | None = None
    decode_ms: float | None = None
    finish_reason: str | None = None
    # where native_calls came from: "server" (its structured tool_calls), "text" (read out
    # of the text by the endpoint engine: not structured to MLPerf's scorer), None (in
    # process, or no call); a line written before the field reads None
    calls_source: str | None = None

    @property
    def score(self) -> float:
        return 1.0 if self.valid else 0.0

    @property
    def completed(self) -> bool:
        return self.status == "completed"

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "score": self.score}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SampleResult:
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in fields}
        for key in ("native_calls", "parsed_calls", "checker_error"):
            values[key] = tuple(values.get(key) or ())
        return cls(**values)


def sample_json(sample: SampleResult) -> str:
    """What the sample's step stores beside it (run.db's `scored`), in the step's commit."""
    return json.dumps(sample.to_dict(), ensure_ascii=False)


def write_samples_file(run_dir: Path, samples: Sequence[SampleResult]) -> None:
    """accuracy_samples.jsonl from the stored samples, replaced whole (a reader's copy: the
    store holds each sample with its step)."""
    replace_file(run_dir / ACCURACY_SAMPLES_FILE, "".join(sample_json(s) + "\n" for s in samples))


def read_samples(run_dir: Path) -> dict[str, SampleResult]:
    """id -> the sample of the attempt that counts: as run.db stores it with its step; for a
    run written before samples were stored there, its file's last line of each id."""
    stored = {}
    for row in read_run(run_dir, samples=False).scored:
        sample = SampleResult.from_dict(json.loads(row["scored_json"]))
        stored[sample.id] = sample
    return {**{i: s for i, s in _file_samples(run_dir).items() if i not in stored}, **stored}


def _file_samples(run_dir: Path) -> dict[str, SampleResult]:
    """id -> the sample's last line; a last line a kill cut short is ignored."""
    path = run_dir / ACCURACY_SAMPLES_FILE
    if not path.is_file():
        return {}
    out: dict[str, SampleResult] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        try:
            sample = SampleResult.from_dict(json.loads(line))
        except (ValueError, TypeError) as exc:
            if n == len(lines):
                break  # cut short by a kill mid-write
            raise StoreError(f"{path}:{n}: not a sample line ({exc}); the file was changed "
                             "by hand?") from exc
        out[sample.id] = sample
    return out


def in_order(samples: dict[str, SampleResult], ids: Sequence[str]) -> list[SampleResult]:
    return [samples[i] for i in ids if i in samples]


def recorded_accuracy(run_dir: Path) -> dict[str, Any]:
    """How an accuracy run was made, as its provenance recorded it (`accuracy`: the subsets
    and the records' ids); a StoreError naming provenance.json where it cannot be read, and
    {} where the run is not an accuracy run."""
    path = Path(run_dir) / PROVENANCE_FILE
    try:
        provenance = read_provenance(Path(run_dir))
    except (OSError, ValueError) as exc:
        raise StoreError(f"cannot read {path}: {exc} (give an accuracy run directory)") from exc
    if provenance is None:
        raise StoreError(f"cannot read {path}: no such file (give an accuracy run directory)")
    return dict(provenance.section("accuracy") or {})
