"""Each default is declared once: RunConfig takes the engine's and the agent loop's defaults
from their own records (never a literal of its own), and a flag's help that names a default
names the one the config applies."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import re
from pathlib import Path

import pytest

from edgeagent.agent import AgentLimits
from edgeagent.cli.main import build_parser
from edgeagent.config import RunConfig
from edgeagent.engine import EngineSettings, SpecSettings

CONFIG = Path(__file__).resolve().parents[2] / "edgeagent" / "config.py"
# RunConfig field -> (owner record, its field): the settings another package owns
OWNED = {
    **{f: (EngineSettings, f) for f in ("n_ctx", "threads", "threads_batch", "n_batch",
                                        "flash_attn", "type_k", "type_v", "gpu_layers",
                                        "mlock", "mmap", "seed", "temperature", "top_p",
                                        "repeat_penalty")},
    **{f: (AgentLimits, f) for f in ("max_format_errors", "max_new_tokens",
                                     "observation_tokens", "stuck_after", "draft_first",
                                     "repair")},
    "grammar": (AgentLimits, "use_grammar"),
    "spec": (SpecSettings, "mode"), "spec_ngram": (SpecSettings, "ngram"),
    "spec_max_draft": (SpecSettings, "max_draft"),
}
# commands whose own default differs from the config's, said in their help
COMMAND_DEFAULTS = {("replay", "max_new_tokens"), ("accuracy", "max_new_tokens"),
                    ("sweep", "max_new_tokens"), ("replay", "n_ctx"), ("accuracy", "n_ctx")}


def _config_defaults_source() -> dict[str, ast.expr]:
    tree = ast.parse(CONFIG.read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "RunConfig")
    return {n.target.id: n.value for n in cls.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value}


@pytest.mark.parametrize("name", sorted(OWNED))
def test_an_owned_default_is_read_from_its_owner_not_restated(name: str) -> None:
    owner, field = OWNED[name]
    value = _config_defaults_source()[name]
    assert not isinstance(value, ast.Constant), f"RunConfig.{name} restates a literal"
    assert getattr(RunConfig(), name) == getattr(owner(), field)


def _flag_defaults() -> list[tuple[str, str, str, object]]:
    """(command, flag, the default its help names, the config's default)."""
    fields = {f.name: f.default for f in dataclasses.fields(RunConfig)}
    sub = next(a for a in build_parser()._actions
               if isinstance(a, argparse._SubParsersAction))
    found = []
    for command, parser in sub.choices.items():
        for action in parser._actions:
            said = re.search(r"\(default (-?[\w./]+)[,:)]", action.help or "")
            if action.dest in fields and said and (command, action.dest) not in COMMAND_DEFAULTS:
                found.append((command, action.option_strings[0], said.group(1),
                              fields[action.dest]))
    return found


def _same(said: str, default: object) -> bool:
    if isinstance(default, bool):
        return said in (("1", "on", "true") if default else ("0", "off", "false"))
    if isinstance(default, (int, float)):
        try:
            return float(said) == default
        except ValueError:
            return False
    return said.rstrip("/") == str(default).rstrip("/")


def test_every_default_a_flags_help_names_is_the_configs() -> None:
    found = _flag_defaults()
    assert len(found) >= 10  # the check reads real help text
    wrong = [f"{c} {flag}: help says {said}, the config applies {d!r}"
             for c, flag, said, d in found if not _same(said, d)]
    assert wrong == []


def test_the_check_catches_a_help_that_drifted() -> None:
    assert not _same("3", 4) and not _same("1", False) and _same("runs/", "runs")
