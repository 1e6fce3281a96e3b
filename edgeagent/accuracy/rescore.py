"""`edgeagent accuracy --rescore RUN_DIR`: every sample of a finished (or interrupted) run
scored again from what it recorded, its raw output and the native calls the engine read,
with the bfcl-eval installed now; accuracy_results.json is written again from the new
verdicts (accuracy_samples.jsonl, the record of what was generated, is left as it is)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreError
from .bfcl import AstChecker
from .extract import scorable_calls, scored_output
from .records import BfclRecord, load_subset
from .samples import SampleResult, read_samples, recorded_accuracy
from .scoring import Checker, score_sample
from .summary import results_document, write_results


@dataclass(frozen=True)
class Rescored:
    document: dict[str, Any]  # the new accuracy_results.json
    changed: tuple[str, ...]  # the samples whose verdict is not the recorded one


def rescored_sample(sample: SampleResult, record: BfclRecord,
                    checker: Checker) -> SampleResult:
    """The sample with a verdict made now; a sample without an answer stays as it is."""
    if not sample.completed or sample.raw_output is None:
        return sample
    calls = [(c["name"], c["arguments"]) for c in sample.native_calls]
    output = scored_output(sample.raw_output, scorable_calls(calls, sample.calls_source))
    verdict = score_sample(record, output, checker)
    return dataclasses.replace(
        sample, output=output, parsed_calls=verdict.calls, made_call=verdict.made_call,
        valid=verdict.valid, rule=verdict.rule, checker_error=verdict.error,
        checker_error_type=verdict.error_type)


def rescore_run(run_dir: Path, *, reference: float | None = None,
            checker: Checker | None = None) -> Rescored:
    checker = checker or AstChecker()
    info = recorded_accuracy(Path(run_dir))
    if not info.get("subset_of"):
        raise StoreError(f"--rescore {run_dir}: not an accuracy run (no accuracy section in "
                         "its provenance.json)")
    samples = read_samples(Path(run_dir))
    records = {r.id: r for s in sorted({x.subset for x in samples.values()})
               for r in load_subset(s)}
    new = {i: rescored_sample(s, records[i], checker) for i, s in samples.items()
           if i in records}
    changed = tuple(i for i, s in new.items() if s.valid != samples[i].valid)
    info = {**info, "rescored_with_bfcl_eval": getattr(checker, "version", None)}
    document = results_document(list(new.values()), list(info["subset_of"]), info, reference)
    write_results(Path(run_dir), document)
    return Rescored(document, changed)
