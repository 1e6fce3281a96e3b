"""One replay run: the same run directory, store, sampler and metering as a live run, with
conversations in place of tasks; plus replay_turns.jsonl, result_summary.json, scores.json."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..agent import issue_reminder, observation, resolve_tool_format
from ..config import RunConfig, load_config
from ..engine import EngineFactory, build_engine
from ..errors import StoreError, SuiteError
from ..events import EventSink, StepRecord, TaskRecord
from ..meter import reset_peak_rss
from ..models import resolve_model
from ..replay import (
    ContextChoice,
    Conversation,
    ConversationResult,
    Preset,
    ReplaySettings,
    ToolCall,
    auto_n_ctx,
    replay_conversation,
    require_context,
    scored_mean,
    turn_lengths,
    uses_native,
    write_summary,
)
from ..rundir import (
    CONFIG_FILE,
    SUPERSEDED_TURNS_FILE,
    TURNS_FILE,
    ResumePlan,
    plan_resume,
    resume_config,
    write_turns_file,
)
from ..sandbox import Toolbox, Workspace
from ..suite import load_suite, suites_root, task_limits
from .driver import Loaded, drive, finished_units, model_label
from .session import (
    RunSession,
    check_out_writable,
    closing_on_error,
)
from .task_records import task_record


def default_dataset() -> Path:
    return suites_root() / "replay" / "smoke.jsonl"


@dataclass(frozen=True)
class ReplaySource:
    """What is replayed: a dataset file, or a run directory's own trajectories."""

    label: str  # dataset path or run directory, for provenance
    conversations: tuple[Conversation, ...]
    sha256: str | None = None
    run_dir: Path | None = None  # set for --from-run: the recorded run (its suite and tasks)


@dataclass(frozen=True)
class ReplayResult:
    run_dir: Path
    status: str
    summary: dict[str, Any]


class SandboxExecutor:
    """Re-executes recorded tool calls in a fresh workspace of the recorded run's task."""

    def __init__(self, toolbox: Toolbox, engine: Any, observation_tokens: int,
                 reminder: str | None = None) -> None:
        self.toolbox = toolbox
        self.engine = engine
        self.observation_tokens = observation_tokens
        self.reminder = reminder  # the live loop's issue reminder, framed the same way

    def execute(self, calls: Sequence[ToolCall]) -> tuple[str, int | None, bool]:
        texts, exit_code, error = [], None, False
        for call in calls:
            result = self.toolbox.call(call.name, call.args)
            text = self.engine.truncate_to_tokens(result.output, self.observation_tokens)
            texts.append(observation(call.name, result, text, reminder=self.reminder))
            exit_code = result.exit_code if result.exit_code is not None else exit_code
            error = error or result.error
        return "\n\n".join(texts), exit_code, error


@contextlib.contextmanager
def _executor_for(conv: Conversation, source: ReplaySource, config: RunConfig, engine: Any,
                  reexecute: bool) -> Iterator[SandboxExecutor | None]:
    if not reexecute:
        yield None
        return
    assert source.run_dir is not None
    recorded = yaml.safe_load((source.run_dir / CONFIG_FILE).read_text()) or {}
    suite = load_suite(str(recorded.get("suite", "smoke")))
    task_id = conv.id.split("#", 1)[0]
    task = next((t for t in suite.tasks if t.id == task_id), None)
    if task is None:
        raise SuiteError(f"--reexecute-tools: task {task_id!r} of {source.run_dir} is not in "
                         f"suite {suite.name} (is the suite still at {suite.path}?)")
    limits = task_limits(task, command_timeout_s=config.command_timeout_s, out=config.out,
                         model=config.model)
    with Workspace.create(task.repo_dir) as ws:
        yield SandboxExecutor(Toolbox(ws, task.test_command, limits), engine,
                              config.observation_tokens, issue_reminder(task.issue))


def tokenizer_path(config: RunConfig, *, progress: bool = True) -> Path | None:
    """The GGUF whose tokenizer counts a replay's prompts: the model, or through an endpoint
    the `--tokenizer` (None without one)."""
    if config.endpoint:
        return resolve_model(config.tokenizer, progress=progress).path if config.tokenizer \
            else None
    return resolve_model(config.model, progress=progress).path


def choose_context(config: RunConfig, conversations: Sequence[Conversation], *,
                   progress: bool = True) -> ContextChoice:
    """`--n-ctx auto`: the context that holds the largest prompt of `conversations` and
    `max_new_tokens`, capped by the model's training context (tokenizer only, no weights)."""
    from ..engine import Vocabulary

    path = tokenizer_path(config, progress=progress)
    if path is None:
        return ContextChoice(config.n_ctx, None, config.max_new_tokens, None,
                             f"no tokenizer to measure the prompts with (give --tokenizer "
                             f"GGUF): the default n_ctx {config.n_ctx}")
    vocab = Vocabulary(path)
    try:
        native = uses_native(config.tool_format, vocab)
        lengths = turn_lengths(conversations, vocab.prompt_tokens, native=native,
                               last_only=True)
        largest = max(lengths, key=lambda t: t.isl, default=None)
        choice = auto_n_ctx(largest.isl if largest else 0, config.max_new_tokens,
                            vocab.n_ctx_train)
        where = (f"conversation {largest.conversation_id} turn {largest.turn}"
                 if largest else None)
        return dataclasses.replace(choice, largest_turn=where)
    finally:
        vocab.close()


def _task_record(result: ConversationResult, attempt: int, steps: list[StepRecord],
                 wall_ms: float, score: float | None) -> TaskRecord:
    dropped = sum(1 for t in result.turns if t.status == "dropped")
    return task_record(
        result.conversation_id, attempt, steps, wall_ms,
        outcome="replayed" if result.termination == "completed" else "invalid",
        termination=result.termination,
        grading_output=(f"inline score {score:.4f}" if score is not None else "no turn")
        + (f"; {dropped} dropped turn(s)" if dropped else ""))


def greedy_config(config: RunConfig) -> tuple[RunConfig, str]:
    """Replay is teacher-forced and greedy: sampling settings in the config are ignored, and
    the note saying so is recorded with the replay (provenance `replay.sampling`)."""
    asked = {k: getattr(config, k) for k in ("temperature", "repeat_penalty")}
    if asked == {"temperature": 0.0, "repeat_penalty": 1.0}:
        return config, "greedy"
    ignored = ", ".join(f"{k} {v:g}" for k, v in asked.items())
    return (dataclasses.replace(config, temperature=0.0, repeat_penalty=1.0),
            f"greedy (replay is teacher-forced and greedy; ignored: {ignored})")


def execute_replay(
    config: RunConfig,
    source: ReplaySource,
    *,
    inject_tool_delay: bool = False,
    reexecute_tools: bool = False,
    sinks: Sequence[EventSink] = (),
    stop_requested: Callable[[], bool] = lambda: False,
    progress: bool = True,
    engine_factory: EngineFactory | None = None,
    n_ctx_auto: bool = False,
    preset: Preset | None = None,
    resume_dir: Path | None = None,
) -> ReplayResult:
    """`n_ctx_auto`: size the context from the conversations (choose_context) instead of
    `config.n_ctx`; the choice and its reason are recorded under `replay.n_ctx_auto`.
    `preset`: the run settings `config` was made with (replay --mlperf), recorded under
    `replay.preset`; the longest turn must fit, checked before the model loads.
    `resume_dir`: continue that interrupted replay (config and source from resume_replay):
    a conversation with a finished record is kept, any other runs again from its first turn
    as its next attempt, as `run --resume` does with tasks (rundir/resume.py)."""
    if resume_dir is not None:
        return _resume(config, source, resume_dir, reexecute_tools=reexecute_tools,
                       sinks=sinks, stop_requested=stop_requested, progress=progress,
                       engine_factory=engine_factory)
    if reexecute_tools and source.run_dir is None:
        raise StoreError("--reexecute-tools needs --from-run RUN_DIR (a dataset file has no "
                         "sandbox to run its tool calls in)")
    out = Path(config.out)
    check_out_writable(out)
    config, sampling_note = greedy_config(config)
    peak_rss_scope = reset_peak_rss()  # the run's own peak, model load included
    config, choice = _sized_config(config, source, n_ctx_auto=n_ctx_auto, preset=preset,
                                   progress=progress)
    model, engine = build_engine(config, progress=progress, engine_factory=engine_factory,
                                 turn_timeout_s=config.turn_timeout_s)
    with closing_on_error(engine):
        tool_format = resolve_tool_format(config.tool_format, engine, live=False)
    settings = ReplaySettings(config.max_new_tokens, inject_tool_delay, config.grammar,
                              tool_format.resolved)
    replay_info = _replay_info(config, source, engine, choice, sampling_note,
                               reexecute_tools=reexecute_tools,
                               inject_tool_delay=inject_tool_delay, preset=preset)
    workload = ReplayWorkload(config, source, settings, tool_format, replay_info,
                              reexecute_tools, stop_requested, _run_label(source, model))
    return _metered_replay(workload, Loaded(config, model, engine, peak_rss_scope), sinks=sinks)


@dataclass
class ReplayWorkload:
    """Recorded conversations, each replayed teacher-forced through the engine, its turns
    scored inline; the summary files written from the closed run.db."""

    config: RunConfig
    source: ReplaySource
    settings: ReplaySettings
    tool_format: Any  # the resolved ToolFormat
    replay_info: dict[str, Any]
    reexecute_tools: bool
    stop_requested: Callable[[], bool]
    run_label: str
    stop_ends_run: bool = True
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def suite(self) -> str:
        return f"replay:{self.source.label}"

    def label(self, model: Any) -> str:
        return self.run_label

    def store_config(self, config: RunConfig) -> dict[str, Any]:
        return {**config.to_dict(), "replay": self.replay_info}

    def provenance(self) -> dict[str, Any]:
        return {"replay": self.replay_info, "tool_format": self.tool_format.to_dict()}

    def unit_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.source.conversations)

    @contextlib.contextmanager
    def running(self, session: RunSession, plan: ResumePlan | None
                ) -> Iterator[dict[str, TaskRecord]]:
        (session.run_dir / TURNS_FILE).touch()
        yield finished_units(plan)

    def run_unit(self, session: RunSession, unit: str, attempt: int) -> TaskRecord:
        """One conversation, its task record (with its metered energy) as stored."""
        conv = next(c for c in self.source.conversations if c.id == unit)
        collector = session.collector
        collector.steps.clear()
        t_conv = time.monotonic_ns()
        with _executor_for(conv, self.source, self.config, session.engine,
                           self.reexecute_tools) as executor:
            result = replay_conversation(
                conv, session.engine, session.sink, self.settings, executor=executor,
                stop_requested=self.stop_requested, attempt=attempt,
            )
        session.emit(_task_record(result, attempt, list(collector.steps),
                                  (time.monotonic_ns() - t_conv) / 1e6,
                                  scored_mean(t.score for t in result.turns)))
        return collector.tasks[-1]

    def unit_done(self, unit: str, n: int, record: TaskRecord, fresh: bool) -> None:
        pass

    def after_close(self, run_dir: Path) -> None:
        write_turns_file(run_dir)  # every turn stored so far (none: a session failed early)
        self.summary.update(write_summary(run_dir, self.replay_info))


def _metered_replay(workload: ReplayWorkload, loaded: Loaded, *, sinks: Sequence[EventSink],
                    plan: ResumePlan | None = None) -> ReplayResult:
    session = drive(workload, loaded, plan=plan, sinks=sinks,
                    stop_requested=workload.stop_requested)
    return ReplayResult(session.run_dir, session.status, workload.summary)


def resume_replay(run_dir: Path, overrides: dict[str, Any]) -> tuple[RunConfig, ReplaySource]:
    """The config and conversations of an interrupted replay, as recorded in its config.yaml:
    the same dataset (its sha256 checked) or source run, the same conversations."""
    from ..models import file_sha256
    from ..replay import load_dataset, run_conversations, select_conversations

    config = resume_config(run_dir, overrides, replay=True)
    info = _recorded_replay(run_dir)
    label = str(info.get("source"))
    if info.get("from_run"):
        conversations = run_conversations(Path(label))
        sha = None
    else:
        if not Path(label).is_file():
            raise StoreError(f"the replay's dataset {label} is gone (put it back to resume "
                             f"{run_dir})")
        sha = file_sha256(Path(label))
        if sha != info.get("dataset_sha256"):
            raise StoreError(f"{label} changed since {run_dir} started (sha256 {sha[:12]}, "
                             f"recorded {str(info.get('dataset_sha256'))[:12]}): a resumed "
                             "replay needs the same dataset")
        conversations = load_dataset(Path(label))
    chosen = select_conversations(conversations, ",".join(info.get("conversations") or []))
    return config, ReplaySource(label, chosen, sha, Path(label) if info.get("from_run") else None)


def _recorded_replay(run_dir: Path) -> dict[str, Any]:
    data = yaml.safe_load((Path(run_dir) / CONFIG_FILE).read_text(encoding="utf-8"))
    return dict(data["replay"])


def _resume(config: RunConfig, source: ReplaySource, resume_dir: Path, *,
            reexecute_tools: bool, sinks: Sequence[EventSink],
            stop_requested: Callable[[], bool], progress: bool,
            engine_factory: EngineFactory | None) -> ReplayResult:
    plan = plan_resume(resume_dir)
    replay_info = _recorded_replay(resume_dir)
    config, _ = greedy_config(config)
    peak_rss_scope = reset_peak_rss()
    model, engine = build_engine(config, progress=progress, engine_factory=engine_factory,
                                 turn_timeout_s=config.turn_timeout_s)
    with closing_on_error(engine):
        tool_format = resolve_tool_format(config.tool_format, engine, live=False)
    settings = ReplaySettings(config.max_new_tokens, bool(replay_info.get("inject_tool_delay")),
                              config.grammar, tool_format.resolved)
    set_aside_unfinished_turns(plan.run_dir, set(plan.done))
    workload = ReplayWorkload(config, source, settings, tool_format, replay_info,
                              reexecute_tools, stop_requested, plan.run_dir.name)
    return _metered_replay(workload, Loaded(config, model, engine, peak_rss_scope), sinks=sinks,
                           plan=plan)


def set_aside_unfinished_turns(run_dir: Path, done: set[str]) -> None:
    """Before a resumed replay: the turns of conversations that will run again move from
    replay_turns.jsonl to replay_turns.superseded.jsonl (kept, counted nowhere), and a line
    the kill cut short is dropped; their steps stay in run.db, listed as superseded."""
    path = run_dir / TURNS_FILE
    lines = path.read_bytes().split(b"\n") if path.is_file() else []
    keep, aside = [], []
    for line in lines:
        try:
            conversation = json.loads(line)["conversation_id"]
        except (ValueError, KeyError, TypeError):
            continue  # empty, or cut short by the kill
        (keep if conversation in done else aside).append(line)
    if aside:
        with (run_dir / SUPERSEDED_TURNS_FILE).open("ab") as f:
            f.write(b"".join(line + b"\n" for line in aside))
            f.flush()
            os.fsync(f.fileno())
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_bytes(b"".join(line + b"\n" for line in keep))
    os.replace(tmp, path)


def _sized_config(config: RunConfig, source: ReplaySource, *, n_ctx_auto: bool,
                  preset: Preset | None, progress: bool) -> tuple[RunConfig,
                                                                   ContextChoice | None]:
    """The config with its context: sized from the conversations when `n_ctx_auto`, and
    under a preset refused (before any weights load) when the longest turn cannot fit."""
    if not n_ctx_auto and preset is None:
        return config, None
    choice = choose_context(config, source.conversations, progress=progress)
    if preset is not None:
        require_context(choice, None if n_ctx_auto else config.n_ctx, preset)
    if not n_ctx_auto:
        return config, None
    # through load_config, so that max_new_tokens < n_ctx is checked as for a given n_ctx
    return load_config(None, {**config.to_dict(), "n_ctx": choice.n_ctx}), choice


def _replay_info(config: RunConfig, source: ReplaySource, engine: Any,
                 choice: ContextChoice | None, sampling_note: str, *, reexecute_tools: bool,
                 inject_tool_delay: bool, preset: Preset | None) -> dict[str, Any]:
    """How the replay was made: config.yaml's and provenance's `replay`, and the summary's
    settings. `concurrency`: requests in flight at a time, 1 as each turn waits for the one
    before it (`edgeagent check` verifies it against the steps' intervals)."""
    return {
        "source": source.label, "dataset_sha256": source.sha256,
        "from_run": source.run_dir is not None, "reexecute_tools": reexecute_tools,
        "inject_tool_delay": inject_tool_delay, "max_new_tokens": config.max_new_tokens,
        "grammar": config.grammar, "n_ctx": getattr(engine, "n_ctx", config.n_ctx),
        "n_ctx_auto": dataclasses.asdict(choice) if choice else None,
        "seed": config.seed, "sampling": sampling_note, "concurrency": 1,
        "turn_timeout_s": config.turn_timeout_s,
        "preset": preset.record(turn_timeout_enforced=True) if preset else None,
        "conversations": [c.id for c in source.conversations],
        "assistant_turns": sum(c.assistant_turns for c in source.conversations),
    }


def _run_label(source: ReplaySource, model: Any) -> str:
    label = Path(source.label).stem if source.run_dir is None else Path(source.label).name[:40]
    # names hold dots (no Path().stem); an endpoint's served name may be a path
    return f"replay-{label}-{model_label(model)}"[:80]
