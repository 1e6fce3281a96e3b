"""One accuracy run: the selected BFCL records through the engine, one sample at a time, in
the same run directory, store, sampler and metering as a live run or a replay (RunSession):
each sample is a task of one step, so run.db holds its TTFT, decode and energy per phase;
its verdict goes to accuracy_samples.jsonl, and accuracy_results.json is written from that
file when the run ends, however it ends.

Every record is sent as MLPerf sends it: its messages and its functions as `tools`, rendered
by the model's own chat template (in process) or by the server (`--endpoint`), free to call a
tool or not (tool_choice "auto", no grammar), greedy, seed 42, 1024 new tokens.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import RunConfig, load_config
from ..engine import ContextOverflow, EngineError, EngineFactory, Generation, build_engine
from ..errors import ConfigError, StoreError
from ..events import EventSink, Scored, TaskRecord, TaskStarted, step_record
from ..meter import reset_peak_rss
from ..models import resolve_model
from ..replay import ContextChoice, auto_n_ctx
from ..run import (
    Loaded,
    RunSession,
    check_out_writable,
    closing_on_error,
    drive,
    model_label,
    task_record,
)
from ..rundir import ACCURACY_SAMPLES_FILE, ResumePlan, plan_resume
from .bfcl import AstChecker
from .extract import scorable_calls, scored_output
from .records import BfclRecord, load_subset
from .rules import BFCL_EVAL_VERSION, MAX_NEW_TOKENS, SEED, SUITE, TEMPERATURE, TOOL_CHOICE
from .samples import (
    SampleResult,
    in_order,
    read_samples,
    recorded_accuracy,
    sample_json,
    write_samples_file,
)
from .sampling import Selection, select_records
from .scoring import Checker, score_sample
from .summary import results_document, write_results

NO_TOOLS = ("has no native tool-call syntax this tool knows (Hermes/Qwen <tool_call>, "
            "Llama 3.1+, Mistral [TOOL_CALLS]); BFCL sends its functions as `tools`: choose a "
            "--model whose template supports tools (the default does)")


@dataclass(frozen=True)
class AccuracyResult:
    run_dir: Path
    status: str  # complete | interrupted | failed
    document: dict[str, Any]  # accuracy_results.json


@dataclass(frozen=True)
class _NoTool:
    """A BFCL answer runs no tool: the step's tool phase is empty."""

    exit_code: int | None = None
    error: bool = False
    retrieval: Any = None


def choose_context(config: RunConfig, records: Sequence[BfclRecord],
                   progress: bool) -> tuple[RunConfig, ContextChoice]:
    """`--n-ctx auto` in process: the longest record's prompt (tools rendered) plus
    max_new_tokens, capped by the training context; the template's tool support is checked
    on the way, before the weights load."""
    from ..engine import Vocabulary

    path = resolve_model(config.model, progress=progress).path
    vocab = Vocabulary(path)
    try:
        if vocab.tool_family is None:
            raise ConfigError(f"--model {config.model}: its chat template {NO_TOOLS}")
        largest = max((len(vocab.prompt_tokens(r.chat(), r.tools)) for r in records),
                      default=0)
        choice = auto_n_ctx(largest, config.max_new_tokens, vocab.n_ctx_train)
    finally:
        vocab.close()
    return load_config(None, {**config.to_dict(), "n_ctx": choice.n_ctx}), choice


def check_tool_support(engine: Any, config: RunConfig) -> None:
    """In process the template must have a tool-call family; a server renders `tools`
    itself, so an endpoint is taken at its word."""
    if getattr(engine, "server_kind", None) is None and engine.tool_family is None:
        raise ConfigError(f"--model {config.model}: its chat template {NO_TOOLS}")


def resumed_records(plan: ResumePlan, load: Callable[[str], list[BfclRecord]] = load_subset
                    ) -> tuple[list[BfclRecord], dict[str, Any]]:
    """The records of an interrupted run, in its order, from the ids it recorded, and how
    the run was made (its provenance's `accuracy`)."""
    info = recorded_accuracy(plan.run_dir)
    subset_of = info.get("subset_of")
    if not subset_of:
        raise StoreError(f"{plan.run_dir} is not an accuracy run (no accuracy section in its "
                         "provenance.json); resume it with the command that made it")
    by_id = {r.id: r for s in sorted(set(subset_of.values())) for r in load(s)}
    missing = [i for i in plan.task_ids if i not in by_id]
    if missing:
        raise StoreError(f"{plan.run_dir}: sample {missing[0]} is not in the installed "
                         f"bfcl-eval's data (is it still {info.get('bfcl_eval_version')}?)")
    return [by_id[i] for i in plan.task_ids], info


def accuracy_info(config: RunConfig, selection: Selection, records: Sequence[BfclRecord],
                  checker_version: str | None,
                  choice: ContextChoice | None) -> dict[str, Any]:
    """How the run was made: provenance's `accuracy`, and accuracy_results.json's own part."""
    settings = {"temperature": config.temperature, "seed": config.seed,
                "max_new_tokens": config.max_new_tokens}
    return {
        "benchmark": "BFCL v4 single-turn, MLPerf Edge Agentic accuracy phase",
        "bfcl_eval_version": checker_version, "bfcl_eval_pinned": BFCL_EVAL_VERSION,
        "sampling": dataclasses.asdict(selection.plan),
        "subsets_asked": list(selection.subsets) if selection.subsets else None,
        "limit": selection.limit, "records": len(records), **settings,
        "mlperf_settings": settings == {"temperature": TEMPERATURE, "seed": SEED,
                                        "max_new_tokens": MAX_NEW_TOKENS},
        "tool_choice": TOOL_CHOICE,
        "n_ctx_auto": dataclasses.asdict(choice) if choice else None,
        "subset_of": {r.id: r.subset for r in records},
    }


def execute_accuracy(
    config: RunConfig,
    selection: Selection,
    *,
    reference: float | None = None,
    sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool] = lambda: False,
    progress: bool = True,
    on_sample: Callable[[SampleResult, int, int, bool], None] | None = None,
    engine_factory: EngineFactory | None = None,
    n_ctx_auto: bool = False,
    resume_dir: Path | None = None,
    checker: Checker | None = None,
) -> AccuracyResult:
    """`on_sample(sample, n, total, fresh)` after each sample (fresh: evaluated now, not kept
    from before a resume); `reference`: MLPerf's gate in accuracy_results.json."""
    checker = checker or AstChecker()  # without the extra: its one-line error, first
    plan = plan_resume(resume_dir) if resume_dir is not None else None
    if plan is not None:
        records, info = resumed_records(plan)
    else:
        records, info = select_records(selection), None
    check_out_writable(Path(config.out))
    config = dataclasses.replace(config, suite=SUITE)
    peak_rss_scope = reset_peak_rss()  # the run's own peak, model load included
    choice = None
    if n_ctx_auto and not config.endpoint:  # a server's window is its own
        config, choice = choose_context(config, records, progress)
    model, engine = build_engine(config, progress=progress, engine_factory=engine_factory)
    with closing_on_error(engine):
        check_tool_support(engine, config)
    if info is None:
        info = accuracy_info(config, selection, records, getattr(checker, "version", None),
                             choice)
    workload = AccuracyWorkload(_RunContext(config, engine, checker, stop_requested, on_sample),
                                tuple(records), info, reference)
    session = drive(workload, Loaded(config, model, engine, peak_rss_scope), plan=plan,
                    sinks=sinks, stop_requested=stop_requested)
    return AccuracyResult(session.run_dir, session.status, workload.document)


@dataclass(frozen=True)
class _RunContext:
    """What every sample of a run is evaluated with."""

    config: RunConfig
    engine: Any
    checker: Checker
    stop_requested: Callable[[], bool]
    on_sample: Callable[[SampleResult, int, int, bool], None] | None


@dataclass
class AccuracyWorkload:
    """BFCL records, each one metered step: generated, scored, its sample line written;
    accuracy_results.json written once the session has closed."""

    ctx: _RunContext
    records: tuple[BfclRecord, ...]
    info: dict[str, Any]
    reference: float | None
    suite: str = SUITE
    stop_ends_run: bool = True
    document: dict[str, Any] = field(default_factory=dict)
    kept_samples: dict[str, SampleResult] = field(default_factory=dict)
    last_sample: SampleResult | None = None

    def label(self, model: Any) -> str:
        return f"accuracy-bfcl-{model_label(model)}"[:80]

    def store_config(self, config: RunConfig) -> dict[str, Any]:
        return config.to_dict()

    def provenance(self) -> dict[str, Any]:
        return {"accuracy": self.info}

    def unit_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.records)

    @contextlib.contextmanager
    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> Iterator[dict[str, TaskRecord]]:
        """A sample finished before a resume (its run.db record and its sample line both
        written) is kept as it is."""
        (session.run_dir / ACCURACY_SAMPLES_FILE).touch()
        if plan is None:
            yield {}
            return
        self.kept_samples = read_samples(session.run_dir)
        yield {i: r for i, r in plan.done.items() if i in self.kept_samples}

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        record = next(r for r in self.records if r.id == unit)
        self.last_sample, task = evaluate(self.ctx, session, record, attempt)
        return task

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        if self.ctx.on_sample is None:
            return
        sample = self.last_sample if fresh else self.kept_samples[unit]
        assert sample is not None
        self.ctx.on_sample(sample, n, len(self.records), fresh)

    def after_close(self, run_dir: Path) -> None:
        ids = [r.id for r in self.records]
        samples = read_samples(run_dir)
        write_samples_file(run_dir, in_order(samples, ids))
        self.document.update(results_document(list(samples.values()), ids,
                                              self.info, self.reference))
        write_results(run_dir, self.document)


def evaluate(ctx: _RunContext, session: RunSession, record: BfclRecord,
             attempt: int) -> tuple[SampleResult, TaskRecord]:
    """One record generated, its step recorded (metered), scored, its sample line written,
    then its task record; returns the sample and the task record as stored."""
    session.collector.steps.clear()
    t0 = time.monotonic_ns()
    question = next((m["content"] for m in reversed(record.messages) if m["role"] == "user"),
                    "")
    session.emit(TaskStarted(record.id, attempt, record.subset, "", question))
    wall_start = time.time()
    try:
        # a tool choice goes with tools (a record without functions asks none)
        gen = ctx.engine.generate(record.chat(), max_tokens=ctx.config.max_new_tokens,
                                  tools=list(record.tools),
                                  tool_choice=TOOL_CHOICE if record.tools else None)
    except (ContextOverflow, EngineError) as exc:
        sample = dropped_sample(record, attempt, exc)
        session.emit(Scored(record.id, attempt, 0, sample_json(sample)))  # no step of its own
    else:
        sample = answered_sample(record, attempt, gen, ctx.checker)
        session.emit(_step(gen, record.id, attempt, wall_start, sample_json(sample)))
    session.emit(sample_task(sample, session.collector.steps,
                             (time.monotonic_ns() - t0) / 1e6))
    return sample, session.collector.tasks[-1]


def _step(gen: Generation, sample_id: str, attempt: int, wall_start: float,
          scored: str) -> Any:
    """The sample's one StepRecord, built as the live loop and replay build theirs; its
    action is the first native call, and the sample's verdict (`scored`) is stored with it."""
    first = gen.tool_calls[0] if gen.tool_calls else None
    args: dict[str, Any] | None = None
    if first is not None:
        try:
            parsed = first.args
            args = parsed if isinstance(parsed, dict) else {"_value": parsed}
        except (ValueError, RecursionError):  # a server's arguments may be any text
            args = {"_raw": first.arguments}
    return step_record(
        gen, task_id=sample_id, attempt=attempt, step=0, wall_start=wall_start,
        action_name=first.name if first else None, action_args=args, format_error=None,
        result=_NoTool(), observation="", truncated=False, observation_tokens=0,
        t_tool_start=gen.t_end_ns, t_tool_end=gen.t_end_ns, scored=scored)


def answered_sample(record: BfclRecord, attempt: int, gen: Generation,
                    checker: Checker) -> SampleResult:
    """The verdict on what MLPerf's scorer would see: through an endpoint, only the server's
    structured calls are calls; the ones our engine read out of the text stay text."""
    calls = tuple((c.name, c.arguments) for c in gen.tool_calls or ())
    source = gen.extra.get("calls_source")
    output = scored_output(gen.text, scorable_calls(calls, source))
    verdict = score_sample(record, output, checker)
    return SampleResult(
        record.id, record.subset, record.category, attempt, "completed", None, gen.text,
        tuple({"name": n, "arguments": a} for n, a in calls), output, verdict.calls,
        verdict.made_call, verdict.valid, verdict.rule, verdict.error, verdict.error_type,
        gen.context_tokens, gen.decoded_tokens, gen.ttft_ms, gen.decode_ms,
        gen.finish_reason, source)


def dropped_sample(record: BfclRecord, attempt: int, exc: Exception) -> SampleResult:
    """A sample without an answer: it fails its subset, as an issued sample that never
    completed fails in MLPerf's scorer."""
    status = "context_overflow" if isinstance(exc, ContextOverflow) else "engine_error"
    return SampleResult(record.id, record.subset, record.category, attempt, status,
                        f"{status.replace('_', ' ')}: {exc}"[:2000], None, (), None, (),
                        False, False, None)


def sample_task(sample: SampleResult, steps: Sequence[Any], wall_ms: float) -> TaskRecord:
    """The sample's run.db task record: its costs and energy per phase, its verdict. A
    sample the model could not answer (its prompt does not fit the context) is `incorrect`,
    a failed sample as MLPerf counts it; an engine error is the harness's: `error`."""
    if not sample.completed:
        outcome = "incorrect" if sample.status == "context_overflow" else "error"
        grading = f"not scored: {sample.reason}"
    else:
        outcome = "correct" if sample.valid else "incorrect"
        grading = f"{sample.rule}: " + ("valid" if sample.valid else
                                        f"{sample.checker_error_type}: "
                                        f"{'; '.join(sample.checker_error)}")
    return task_record(sample.id, sample.attempt, steps, wall_ms, outcome=outcome,
                       termination=sample.status, grading_output=grading[:4000],
                       error=sample.reason, termination_detail=sample.reason)
