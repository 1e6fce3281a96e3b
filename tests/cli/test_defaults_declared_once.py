"""Each setting is declared once, in its package's section: RunConfig is the sections (no key
of its own outside `setting()`), every command's flag for a config key is made from that
declaration (its help and the default it states), and the records the engine, the agent loop
and the replay run with read their defaults from the sections instead of restating them."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
from pathlib import Path

import pytest

from edgeagent.agent import AgentLimits
from edgeagent.cli.main import build_parser
from edgeagent.config import SECTIONS, RunConfig
from edgeagent.engine import EndpointSettings, EngineSettings, SpecSettings
from edgeagent.replay.replayer import ReplaySettings
from edgeagent.settings import flag_help, settings_of
from edgeagent.sweep import SETTINGS as SWEPT

# commands whose own default for a key differs from the section's, stated in their help
COMMAND_DEFAULTS = {("replay", "max_new_tokens"), ("accuracy", "max_new_tokens"),
                    ("sweep", "max_new_tokens"), ("replay", "n_ctx"), ("accuracy", "n_ctx")}
# the commands whose flags set a run's config keys
CONFIG_COMMANDS = ("run", "replay", "accuracy", "serve", "sweep")
# a key's flag a command spells by hand, and why
HAND_SPELLED = {
    ("run", "tasks"): "--task ID, repeated",
    ("serve", "served_model"): "the name this server lists, not the one it asks a server for",
    ("sweep", "suite"): "a suite run live instead of the replayed dataset",
    ("sweep", "tasks"): "--task ID with --suite, repeated",
    ("sweep", "out"): "where the sweep directory goes, its runs below it",
    **{("sweep", key): "a comma list of values to sweep" for key in SWEPT},
}
# a record a package runs with -> (its field -> the section key whose default it takes)
OWNED = {
    AgentLimits: {"max_format_errors": "max_format_errors", "max_new_tokens": "max_new_tokens",
                  "observation_tokens": "observation_tokens", "use_grammar": "grammar",
                  "stuck_after": "stuck_after", "draft_first": "draft_first",
                  "repair": "repair"},
    SpecSettings: {"mode": "spec", "ngram": "spec_ngram", "max_draft": "spec_max_draft"},
    EndpointSettings: {"api_key_env": "api_key_env", "served_model": "served_model",
                       "constraint": "endpoint_constraint", "turn_timeout_s": "turn_timeout_s",
                       "retries": "endpoint_retries", "n_ctx": "n_ctx"},
    ReplaySettings: {"use_grammar": "grammar", "tool_format": "tool_format"},
}


def test_every_config_key_is_declared_once_by_one_section_or_the_run() -> None:
    declared: dict[str, list[str]] = {}
    for section in (*SECTIONS, RunConfig):
        own = inspect.get_annotations(section)
        for key in settings_of(section):
            if key in own:
                declared.setdefault(key, []).append(section.__name__)
    fields = [f.name for f in dataclasses.fields(RunConfig)]
    assert sorted(declared) == sorted(fields)  # every field a setting, none left out
    assert {k: v for k, v in declared.items() if len(v) > 1} == {}
    assert len(fields) >= 45


def _flags() -> list[tuple[str, argparse.Action]]:
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    return [(command, action) for command, parser in sub.choices.items()
            if command in CONFIG_COMMANDS
            for action in parser._actions if action.option_strings]


def test_every_flag_of_a_config_key_is_made_from_its_declaration() -> None:
    declared = settings_of(RunConfig)
    checked, wrong = 0, []
    for command, action in _flags():
        if action.dest not in declared or (command, action.dest) in HAND_SPELLED:
            continue
        if action.help == argparse.SUPPRESS:  # a flag a command refuses (accuracy)
            continue
        field, setting = declared[action.dest]
        checked += 1
        if (command, action.dest) in COMMAND_DEFAULTS:
            ok = action.help.startswith(setting.help.replace("%", "%%") + " (default ")
        else:
            ok = action.help == flag_help(field, setting)
        if not ok:
            wrong.append(f"{command} {action.option_strings[0]}: {action.help!r}")
    assert checked >= 100  # the check reads the real parsers
    assert wrong == []


def test_a_commands_own_default_is_said_in_its_help() -> None:
    helps = {(c, a.dest): a.help for c, a in _flags()}
    assert "(default 1024, MLPerf's)" in helps[("replay", "max_new_tokens")]
    assert "(default auto: " in helps[("accuracy", "n_ctx")]


def _source_default(record: type, name: str) -> ast.expr | None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(record)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    return next((n.value for n in body if isinstance(n, ast.AnnAssign)
                 and isinstance(n.target, ast.Name) and n.target.id == name), None)


@pytest.mark.parametrize("record", OWNED, ids=lambda r: r.__name__)
def test_a_record_takes_its_defaults_from_the_section_not_a_literal(record: type) -> None:
    sections = RunConfig()
    for name, key in OWNED[record].items():
        value = _source_default(record, name)
        assert value is not None and not isinstance(value, ast.Constant), \
            f"{record.__name__}.{name} restates a literal"
        got = next(f.default for f in dataclasses.fields(record) if f.name == name)
        assert got == getattr(sections, key), f"{record.__name__}.{name}"


def test_the_engine_record_is_the_sections_it_is_built_from() -> None:
    # EngineSettings inherits the llama.cpp and sampling sections: built from a config, it
    # holds the config's values, and its own defaults are theirs
    config = RunConfig(n_ctx=4096, threads=3, temperature=0.5, seed=7, n_ubatch=None)
    engine = config.engine_settings()
    assert (engine.n_ctx, engine.threads, engine.temperature, engine.seed) == (4096, 3, 0.5, 7)
    assert engine.physical_batch == min(config.n_batch, 512)
    assert EngineSettings().n_ctx == RunConfig().n_ctx
    assert EngineSettings().physical_batch == 512


def test_the_check_catches_a_flag_that_restates_its_help() -> None:
    field, setting = settings_of(RunConfig)["max_steps"]
    made = flag_help(field, setting)
    assert made.startswith(setting.help) and "(default the task's own, else 20)" in made
    assert made != "step limit per task (default: the task's)"  # the old hand-written help


def test_the_config_reference_page_is_made_from_the_sections() -> None:
    import runpy

    tool = runpy.run_path(str(Path(__file__).resolve().parents[2] / "tools" /
                              "config_reference.py"))
    page = tool["PAGE"].read_text(encoding="utf-8")
    assert page == tool["page"](), "docs/config.md is stale: python tools/config_reference.py"
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(dataclasses.fields(RunConfig))  # one row per key
