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

from .agent import AgentLimits
from .engine import (
    FLASH_ATTN_MODES,
    GGML_TYPES,
    EngineSettings,
    SpecSettings,
    flash_attn_mode,
    parse_spec,
)
from .errors import ConfigError
from .models import DEFAULT_MODEL
from .safe_yaml import NoAliasLoader

# Each default is declared once, by the package that owns the setting: the engine's
# (EngineSettings, SpecSettings) and the agent loop's (AgentLimits) are read from there.
_ENGINE = EngineSettings()
_SPEC = SpecSettings()
_LIMITS = AgentLimits()


@dataclass(frozen=True)
class RunConfig:
    model: str = DEFAULT_MODEL
    suite: str = "smoke"
    tasks: tuple[str, ...] | None = None  # None: every task of the suite
    out: str = "runs"
    # agent limits; None takes the task's own limit, then the built-in default
    max_steps: int | None = None
    wall_s: float | None = None
    command_timeout_s: float | None = None
    max_context_tokens: int | None = None
    max_format_errors: int = _LIMITS.max_format_errors
    max_new_tokens: int = _LIMITS.max_new_tokens
    observation_tokens: int = _LIMITS.observation_tokens
    grammar: bool = _LIMITS.use_grammar
    # how tool calls are written: native (the chat template's own syntax and `tools`), text
    # (our JSON protocol in the system prompt), auto (text for a live run, the measured
    # better one; native for a replay where the template has it: agent/native.py)
    tool_format: str = "auto"
    # the stuck rule (agent/stuck.py): a task ends as `stuck` when this many steps in a row
    # (the first one included) brought nothing new, every later one repeating a call already
    # made with the same outcome; 0 disables it
    stuck_after: int = _LIMITS.stuck_after
    # our loop's step 0: when the issue names one source file, the model rewrites that whole
    # file first, kept only if the visible tests pass (agent/draft.py); false: the loop alone
    draft_first: bool = _LIMITS.draft_first
    # after a draft that fails the visible tests, up to this many repair drafts shown the
    # tests' output (agent/repair.py); 0: none (the measured default until repairs are
    # measured on core; docs/agents.md)
    repair: int = _LIMITS.repair
    # which agent works the tasks (edgeagent/harness/): edgeagent (our loop), single-shot (the
    # issue and the one file it names, one answer), mini-swe-agent (the real one, its commands
    # in our sandbox), cmd (agent_cmd: any program, confined whole, our endpoint its network)
    agent: str = "edgeagent"
    agent_cmd: str | None = None
    # engine (llama.cpp's context and model settings; docs/sweep.md says what each does)
    n_ctx: int = _ENGINE.n_ctx
    threads: int | None = _ENGINE.threads  # 0 or None: one per CPU
    # prompt (batch) threads; None: the same as threads
    threads_batch: int | None = _ENGINE.threads_batch
    n_batch: int = _ENGINE.n_batch  # logical batch: prompt tokens submitted per llama_decode
    # physical batch: tokens computed at once, at most n_batch; None: 512 or n_batch if less
    n_ubatch: int | None = None
    # auto | on | off (true/false as on/off); auto: off where the model runs on the CPU with
    # an f16 V cache (llama.cpp's CPU kernel measured slower), else llama.cpp's own choice
    # (on where the backend has it, as its C API and llama-server default to)
    flash_attn: str = _ENGINE.flash_attn
    type_k: str = _ENGINE.type_k  # KV cache types: f16, q8_0, q4_0 (a quantized V needs flash_attn)
    type_v: str = _ENGINE.type_v
    gpu_layers: int = _ENGINE.gpu_layers
    mlock: bool = _ENGINE.mlock  # lock the model's pages in RAM
    mmap: bool = _ENGINE.mmap  # map the GGUF instead of reading it into memory
    # sampling (llama.cpp's sampler chain); temperature 0 is greedy. Replay is always greedy.
    seed: int = _ENGINE.seed
    temperature: float = _ENGINE.temperature
    top_p: float = _ENGINE.top_p  # nucleus: used only when temperature > 0
    # 1.0: off; applies to the last 64 tokens, greedy too
    repeat_penalty: float = _ENGINE.repeat_penalty
    # meter
    sample_interval_s: float = 0.05  # 20 Hz; clamped to >= 1 s when the total is a battery
    power_root: str = "/"  # where sysfs is read: a copied or fixture tree for tests
    power_estimate_tdp: float | None = None  # watts: allows a labelled CPU x TDP estimate
    baseline_s: float = 0.0  # idle power measured this long before the first task (0: none)
    # a run whose model phases lost more of the CPUs to other processes or steal than the
    # check's threshold is INVALID for its timings and energy; true: accept it knowingly
    # (the check then notes it; docs/interference.md)
    allow_interference: bool = False
    # retrieval: offer the search_code tool (needs the [retrieval] extra)
    retrieval: bool = False
    retrieval_model: str = "all-minilm-l6-v2-int8"
    retrieval_threads: int | None = None  # onnxruntime intra-op threads; None: `threads`
    # speculative decoding (greedy only): off | prompt-lookup | draft:MODEL
    spec: str = _SPEC.mode
    spec_ngram: int = _SPEC.ngram
    spec_max_draft: int = _SPEC.max_draft
    # OpenAI-compatible endpoint instead of the in-process engine (edgeagent.engine.http)
    endpoint: str | None = None  # e.g. http://127.0.0.1:8080/v1
    api_key_env: str | None = None  # name of the environment variable holding the key
    served_model: str | None = None  # the `model` sent; default: the first one listed
    endpoint_constraint: str = "auto"  # auto | gbnf | json_schema | json_object | none
    turn_timeout_s: float = 600.0  # per request, retries included
    endpoint_retries: int = 3
    tokenizer: str | None = None  # GGUF path or known model whose vocabulary counts tokens

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["tasks"] = list(self.tasks) if self.tasks is not None else None
        return d

    def engine_settings(self) -> EngineSettings:
        """What the in-process engine is built with: this config's context, llama.cpp,
        sampling and speculative settings."""
        return EngineSettings(
            n_ctx=self.n_ctx,
            threads=self.threads,
            threads_batch=self.threads_batch,
            gpu_layers=self.gpu_layers,
            n_batch=self.n_batch,
            n_ubatch=self.n_ubatch or min(self.n_batch, 512),  # llama.cpp's default
            flash_attn=self.flash_attn,
            type_k=self.type_k,
            type_v=self.type_v,
            mlock=self.mlock,
            mmap=self.mmap,
            seed=self.seed,
            temperature=self.temperature,
            top_p=self.top_p,
            repeat_penalty=self.repeat_penalty,
            spec=parse_spec(self.spec, ngram=self.spec_ngram, max_draft=self.spec_max_draft),
        )


_FIELDS = {f.name: f for f in dataclasses.fields(RunConfig)}
_DEFAULT_STEPS = _LIMITS.max_steps
_MINIMUMS: dict[str, float] = {
    "max_steps": 1, "n_ctx": 512, "max_new_tokens": 1, "observation_tokens": 64,
    "sample_interval_s": 0.005, "power_estimate_tdp": 0.1, "spec_ngram": 1, "spec_max_draft": 1,
    "turn_timeout_s": 0.1, "n_batch": 1, "n_ubatch": 1,
}
KV_CACHE_TYPES = tuple(GGML_TYPES)  # f16, q8_0, q4_0
DEFAULT_WALL_S = _LIMITS.wall_s


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
    _check_tool_format(config, origin.get("tool_format", "tool_format"))
    _check_consistent(config, path)
    _check_engine(config, origin)
    _check_spec(config, origin.get("spec", "spec"))
    return config


TOOL_FORMATS = ("auto", "native", "text")
AGENTS = ("edgeagent", "single-shot", "mini-swe-agent", "cmd")


def _check_tool_format(config: RunConfig, where: str) -> None:
    if config.tool_format not in TOOL_FORMATS:
        raise ConfigError(
            f"{where}: key 'tool_format' must be one of {', '.join(TOOL_FORMATS)}, "
            f"got {config.tool_format!r}"
        )



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
    parse_spec(config.spec, ngram=config.spec_ngram, max_draft=config.spec_max_draft,
               where=where)
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
    for key in ("type_k", "type_v"):
        if getattr(config, key) not in KV_CACHE_TYPES:
            raise ConfigError(
                f"{where(key)}: key '{key}' must be one of {', '.join(KV_CACHE_TYPES)}, "
                f"got {getattr(config, key)!r}"
            )
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
    return config.max_steps or task_limit or _DEFAULT_STEPS
