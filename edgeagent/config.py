"""RunConfig: embedded defaults <- YAML file <- CLI overrides, checked into a frozen dataclass.

Every bad value ends in a ConfigError naming the file, line and key and what would be valid.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .agent import DEFAULT_MAX_STEPS, LimitsConfig
from .engine import (
    FLASH_ATTN_MODES,
    GGML_TYPES,
    EndpointConfig,
    EngineSettings,
    LlamaConfig,
    SamplingConfig,
    SpecConfig,
    flash_attn_mode,
)
from .errors import ConfigError
from .meter import MeterConfig
from .models import DEFAULT_MODEL
from .retrieval import RetrievalConfig
from .safe_yaml import NoAliasLoader
from .sandbox import SandboxConfig
from .settings import setting, settings_of, values_of

# which agent works the tasks (edgeagent/harness/): edgeagent (our loop), single-shot (the
# issue and the one file it names, one answer), mini-swe-agent (the real one, its commands in
# our sandbox), aider (the real one from its own environment, confined whole), cmd (agent_cmd:
# any program, confined whole, our endpoint its network)
AGENTS = ("edgeagent", "single-shot", "mini-swe-agent", "aider", "cmd")
# the sections a run's config is made of, each owned by its package; a key is a field of one
SECTIONS = (LimitsConfig, SandboxConfig, LlamaConfig, SamplingConfig, SpecConfig,
            EndpointConfig, MeterConfig, RetrievalConfig)


@dataclass(frozen=True)
class RunConfig(RetrievalConfig, MeterConfig, EndpointConfig, SpecConfig, SamplingConfig,
                LlamaConfig, SandboxConfig, LimitsConfig):
    """A run's settings: what it runs (declared here) and every package's section (inherited,
    so each key, its default, its help and its flag are declared once, by its owner). YAML
    keys are the fields' names; a command's flags are made from the same fields
    (settings.add_flags)."""

    model: str = setting(DEFAULT_MODEL, "known model name or path to a .gguf file")
    suite: str = setting("smoke", "bundled suite name (smoke) or a suite directory")
    # None: every task of the suite (the command line's --task, repeated, is spelled by hand)
    tasks: tuple[str, ...] | None = setting(None, "the task ids to run", cli=False,
                                            default_text="every task of the suite")
    out: str = setting("runs", "directory that receives the run directory")
    agent: str = setting(
        "edgeagent", "who works the tasks: edgeagent (our loop), single-shot (the issue and the "
        "one file it names, one answer), mini-swe-agent (needs the [mini-swe-agent] extra), "
        "aider (needs `edgeagent agents install aider`); docs/agents.md", metavar="NAME")
    agent_cmd: str | None = setting(
        None, "any agent program, run whole in the sandbox with our endpoint as its only "
        "network; placeholders {issue} {issue_file} {base_url} {model} {api_key} {max_steps} "
        "{workdir} (docs/agents.md)", metavar="TEMPLATE", default_text="none")

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["tasks"] = list(self.tasks) if self.tasks is not None else None
        return d

    def engine_settings(self) -> EngineSettings:
        """What the in-process engine is built with: this config's llama.cpp, sampling and
        speculative sections."""
        return EngineSettings(**values_of(LlamaConfig, self), **values_of(SamplingConfig, self),
                              spec=self.spec_settings())


_FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}
_SETTINGS = {key: s for key, (_, s) in settings_of(RunConfig).items()}
_MINIMUMS = {key: s.minimum for key, s in _SETTINGS.items() if s.minimum is not None}
KV_CACHE_TYPES = tuple(GGML_TYPES)  # f16, q8_0, q4_0


def _expected(name: str) -> str:
    hint = str(_FIELDS[name].type)
    for word, kind in (("bool", "true or false"), ("tuple", "a list of task ids"),
                       ("int", "an integer"), ("float", "a number"), ("str", "a string")):
        if word in hint:
            return kind + (" or null" if "None" in hint else "")
    return hint


def _coerce(name: str, value: Any, where: str) -> Any:
    hint = str(_FIELDS[name].type)
    bad = ConfigError(f"{where}: key '{name}' must be {_expected(name)}, got {value!r}")
    if value is None:
        if "None" in hint:
            return None
        raise bad
    if name == "flash_attn":  # a mode; the bools of configs written before it had `auto`
        mode = flash_attn_mode(value)
        if mode is None:
            raise ConfigError(f"{where}: key 'flash_attn' must be one of "
                              f"{', '.join(FLASH_ATTN_MODES)}, got {value!r}")
        return mode
    if "bool" in hint:
        if isinstance(value, bool):
            return value
        raise bad
    if "tuple" in hint:
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise bad
    if "int" in hint and "float" not in hint:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        if value < 0:
            raise ConfigError(f"{where}: key '{name}' must not be negative, got {value}")
        if value < _MINIMUMS.get(name, 0):
            raise ConfigError(
                f"{where}: key '{name}' must be at least {_MINIMUMS[name]}, got {value}"
            )
        return value
    if "float" in hint:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if value < 0:
            raise ConfigError(f"{where}: key '{name}' must not be negative, got {value}")
        if value < _MINIMUMS.get(name, 0):
            raise ConfigError(
                f"{where}: key '{name}' must be at least {_MINIMUMS[name]}, got {value}"
            )
        return float(value)
    if not isinstance(value, str) or not value:
        raise bad
    choices = _SETTINGS[name].choices
    if choices and value not in choices:
        raise ConfigError(f"{where}: key '{name}' must be one of {', '.join(choices)}, "
                          f"got {value!r}")
    return value


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror or exc}") from exc
    try:
        node = yaml.compose(text)
        data = yaml.load(text, Loader=NoAliasLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path}:{line} invalid YAML: {problem}") from exc
    if data is None:
        return {}, {}
    if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
        raise ConfigError(f"{path}: the config must be a mapping of key: value lines")
    lines = {k.value: k.start_mark.line + 1 for k, _ in node.value if hasattr(k, "value")}
    return data, lines


def load_config(path: Path | None = None, overrides: dict[str, Any] | None = None) -> RunConfig:
    values: dict[str, Any] = {}
    if path is not None:
        data, lines = _read_yaml(path)
        for key, value in data.items():
            where = f"{path}:{lines.get(key, '?')}"
            if key not in _FIELDS:
                known = ", ".join(_FIELDS)
                close = difflib.get_close_matches(str(key), list(_FIELDS), n=1)
                hint = f"did you mean '{close[0]}'? " if close else ""
                raise ConfigError(f"{where}: unknown key '{key}' ({hint}known keys: {known})")
            values[key] = _coerce(key, value, where)
    origin: dict[str, str] = {}
    if path is not None:
        origin = {key: f"{path}:{lines.get(key, '?')}" for key in values}
    for key, value in (overrides or {}).items():
        if value is not None:
            origin[key] = f"--{key.replace('_', '-')}"
            values[key] = _coerce(key, value, origin[key])
    if values.get("agent_cmd") and "agent" not in values:
        values["agent"] = "cmd"  # --agent-cmd alone names the agent
    config = RunConfig(**values)
    _check_agent(config, origin)
    _check_consistent(config, path)
    _check_engine(config, origin)
    _check_spec(config, origin.get("spec", "spec"))
    return config


def _check_agent(config: RunConfig, origin: dict[str, str]) -> None:
    where = origin.get("agent", "agent")
    if config.agent not in AGENTS:
        close = difflib.get_close_matches(config.agent, AGENTS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ConfigError(f"{where}: unknown agent {config.agent!r} ({hint}known: "
                          f"{', '.join(AGENTS)}; any other program: --agent-cmd 'COMMAND')")
    if config.agent == "cmd" and not config.agent_cmd:
        raise ConfigError(f"{where}: agent cmd needs the command line: --agent-cmd 'COMMAND' "
                          "(config key agent_cmd)")
    if config.agent_cmd and config.agent != "cmd":
        raise ConfigError(f"{origin.get('agent_cmd', 'agent_cmd')}: --agent-cmd runs a program "
                          f"of yours, but the agent is {config.agent!r}; drop one of the two")


def _check_spec(config: RunConfig, where: str) -> None:
    config.spec_settings(where)
    if config.spec != "off" and config.endpoint:
        raise ConfigError(
            f"{where}: speculative decoding runs in the in-process engine, but the endpoint "
            f"{config.endpoint} decodes this run; drop spec (the server may have its own, "
            "e.g. llama-server --model-draft) or endpoint"
        )
    if config.spec != "off" and config.temperature != 0:
        raise ConfigError(
            f"{where}: key 'spec' needs greedy decoding (drafts are verified against the "
            f"argmax), but temperature is {config.temperature}; set spec: off or temperature: 0"
        )
    if config.spec != "off" and config.repair and config.repair_strategy != "repair":
        raise ConfigError(
            f"{where}: key 'spec' needs greedy decoding, but repair_strategy "
            f"{config.repair_strategy} samples its rounds; set spec: off or repair_strategy: "
            "repair"
        )
    if config.spec != "off" and config.repeat_penalty != 1:
        raise ConfigError(
            f"{where}: key 'spec' needs plain greedy decoding (drafts are verified against the "
            f"argmax), but repeat_penalty is {config.repeat_penalty}; set spec: off or "
            "repeat_penalty: 1"
        )


def _check_consistent(config: RunConfig, path: Path | None) -> None:
    """Limits that are each valid but impossible together: fail now, not mid-run."""
    where = f"{path}" if path is not None else "command line"
    if not 0 < config.top_p <= 1:
        raise ConfigError(f"{where}: key 'top_p' must be in (0, 1], got {config.top_p}")
    if config.repeat_penalty == 0:
        raise ConfigError(f"{where}: key 'repeat_penalty' must be positive (1.0: off), got 0")
    if config.max_new_tokens >= config.n_ctx:
        raise ConfigError(
            f"{where}: key 'max_new_tokens' ({config.max_new_tokens}) must be smaller than "
            f"n_ctx ({config.n_ctx}): a step could not fit its own answer"
        )
    if config.max_context_tokens is not None and config.max_context_tokens > config.n_ctx:
        raise ConfigError(
            f"{where}: key 'max_context_tokens' ({config.max_context_tokens}) is larger than "
            f"n_ctx ({config.n_ctx}); raise n_ctx or lower max_context_tokens"
        )


def _check_engine(config: RunConfig, origin: dict[str, str]) -> None:
    """llama.cpp settings that it would refuse (or silently change) when the model loads."""
    where = lambda key: origin.get(key, "config")  # noqa: E731
    if config.type_v != "f16" and config.flash_attn == "off":
        raise ConfigError(
            f"{where('type_v')}: a quantized V cache (type_v {config.type_v}) needs flash "
            "attention in llama.cpp; set flash_attn: auto or on (--flash-attn on) or "
            "type_v: f16"
        )
    if config.n_ubatch is not None and config.n_ubatch > config.n_batch:
        raise ConfigError(
            f"{where('n_ubatch')}: key 'n_ubatch' ({config.n_ubatch}) is larger than n_batch "
            f"({config.n_batch}); llama.cpp would cut it to n_batch: lower n_ubatch or raise "
            "n_batch"
        )


def effective_max_steps(config: RunConfig, task_limit: int | None) -> int:
    return config.max_steps or task_limit or DEFAULT_MAX_STEPS
