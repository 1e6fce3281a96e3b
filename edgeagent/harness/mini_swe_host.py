"""Host for the real mini-swe-agent (2.4.6), run in its own process by mini_swe.py:

    python -m edgeagent.harness.mini_swe_host SPEC.json

It runs mini-swe-agent's DefaultAgent with its shipped config (default.yaml with
LitellmTextbasedModel, or mini.yaml with LitellmModel) against our OpenAI-compatible loopback
server. Only step_limit, cost_limit, wall_time_limit_seconds, output_path and the model
endpoint are changed. Its shell commands are untrusted: they run through our sandbox
(edgeagent.sandbox.process.run_command), never through mini-swe-agent's LocalEnvironment.

minisweagent is imported only after _isolate_env(): its import reads ~/.config and a .env
file there, and litellm's import fetches a price list from the internet (see
docs/notes/mini-swe-agent.md). The result goes to the spec's result_path as JSON, also when
the agent raises; stdout carries nothing (everything goes to stderr, the parent's log file).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import platform
import re
import shlex
import shutil
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgeagent.sandbox import CommandResult, ProcessLimits, run_command

# mini-swe-agent's submit signal: the first line of a command's output (see _submission)
SUBMIT_SENTINEL = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
CONFIGS = {"default": "default.yaml", "mini": "mini.yaml"}
API_KEY = "edgeagent"  # our server ignores it; litellm refuses to call without one
_ERROR_CHARS = 500
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Variables from our environment that would change where litellm or mini-swe-agent connect
# or what they load (proxies would carry loopback calls off the machine).
_DROP_PREFIXES = ("MSWEA_", "LITELLM_", "OPENAI_")
_DROP_NAMES = ("http_proxy", "https_proxy", "all_proxy", "ftp_proxy")


@dataclass(frozen=True)
class HostSpec:
    """SPEC.json, as mini_swe.MiniSweSpec writes it."""

    base_url: str
    model_name: str
    issue: str
    workdir: Path
    step_limit: int
    wall_s: float
    command_timeout_s: float
    process_limits: ProcessLimits
    trajectory_path: Path
    result_path: Path
    config: str = "default"
    temperature: float = 0.0
    seed: int | None = 42


def load_spec(path: Path) -> HostSpec:
    raw = json.loads(path.read_text(encoding="utf-8"))
    config = raw.get("config", "default")
    if config not in CONFIGS:
        raise ValueError(f"config must be one of {sorted(CONFIGS)}, not {config!r}")
    timeout_s = float(raw["command_timeout_s"])
    return HostSpec(
        base_url=str(raw["base_url"]),
        model_name=str(raw["model_name"]),
        issue=str(raw["issue"]),
        workdir=Path(raw["workdir"]),
        step_limit=int(raw["step_limit"]),
        wall_s=float(raw["wall_s"]),
        command_timeout_s=timeout_s,
        process_limits=limits_from_dict(raw.get("process_limits") or {}, timeout_s),
        trajectory_path=Path(raw["trajectory_path"]),
        result_path=Path(raw["result_path"]),
        config=config,
        temperature=float(raw.get("temperature", 0.0)),
        seed=None if (seed := raw.get("seed", 42)) is None else int(seed),
    )


def limits_from_dict(fields: dict[str, Any], timeout_s: float) -> ProcessLimits:
    """ProcessLimits from JSON (tuples arrive as lists); the command timeout always wins."""
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    return ProcessLimits(**{**values, "timeout_s": float(timeout_s)})


# ---- the environment: mini-swe-agent's Environment protocol over our sandbox ----------------


def submission_of(output: dict[str, Any]) -> str | None:
    """The submission when a command's output is mini-swe-agent's submit signal, else None.

    The rule of LocalEnvironment._check_finished in minisweagent/environments/local.py
    (2.4.6), copied as is: the first line of the left-stripped output is the sentinel and
    the return code is 0; the submission is everything after that line.
    """
    lines = output.get("output", "").lstrip().splitlines(keepends=True)
    if lines and lines[0].strip() == SUBMIT_SENTINEL and output["returncode"] == 0:
        return "".join(lines[1:])
    return None


def observation(result: CommandResult, command: str, timeout_s: float) -> dict[str, Any]:
    """mini-swe-agent's observation dict for one sandboxed command.

    A timeout reads as LocalEnvironment's does (returncode -1, the partial output, and
    subprocess.TimeoutExpired's message); a sandbox limit that ended the command is said in
    exception_info, which the shipped observation templates show to the model.
    """
    if result.timed_out:
        why = f"Command '{command}' timed out after {timeout_s:g} seconds"
        notes = [f"An error occurred while executing the command: {why}"]
        extra = {"exception_type": "TimeoutExpired", "exception": why}
        returncode = -1
    else:
        notes, extra = [], {}
        returncode = result.exit_code if result.exit_code is not None else -1
    if result.limit_hit:
        notes.append(result.limit_hit)
        extra["limit_hit"] = result.limit_hit
    out: dict[str, Any] = {"output": result.output, "returncode": returncode,
                           "exception_info": "\n".join(notes)}
    if extra:
        out["extra"] = extra
    return out


def export_prefix(env: dict[str, Any]) -> str:
    """`export K=V ...; ` for the config's environment.env: run_command builds its own
    scrubbed environment, so the shipped variables (PAGER=cat, ...) are set in the shell."""
    bad = [k for k in env if not _ENV_NAME.match(str(k))]
    if bad:
        raise ValueError(f"environment.env has names a shell cannot export: {bad}")
    if not env:
        return ""
    pairs = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
    return f"export {pairs}; "


class SandboxEnvironment:
    """Runs each action in a fresh sandboxed shell in the task's workspace; raises
    mini-swe-agent's Submitted on the submit signal, as LocalEnvironment does."""

    def __init__(self, workdir: Path, limits: ProcessLimits, env: dict[str, Any]) -> None:
        self.workdir = workdir
        self.limits = limits
        self.env = {str(k): str(v) for k, v in env.items()}
        self.prefix = export_prefix(self.env)
        self.n_commands = 0
        # what the templates and the trajectory see; not os.environ (it would leak ours)
        self.config = {"cwd": str(workdir), "env": self.env, "timeout": limits.timeout_s}

    def execute(self, action: dict, cwd: str = "", *,
                timeout: int | None = None) -> dict[str, Any]:
        command = action.get("command", "")
        limits = self.limits if timeout is None else dataclasses.replace(
            self.limits, timeout_s=float(timeout))
        # The sandbox is always rooted at the workspace; another cwd is entered inside it.
        cd = f"cd -- {shlex.quote(cwd)} || exit 1; " if cwd else ""
        self.n_commands += 1
        try:
            result = run_command(self.prefix + cd + command, self.workdir, limits)
        except Exception as exc:  # as LocalEnvironment: a failure to run is an observation
            output = {"output": "", "returncode": -1,
                      "exception_info": f"An error occurred while executing the command: {exc}",
                      "extra": {"exception_type": type(exc).__name__, "exception": str(exc)}}
        else:
            output = observation(result, command, limits.timeout_s)
        self._check_finished(output)
        return output

    def _check_finished(self, output: dict[str, Any]) -> None:
        submission = submission_of(output)
        if submission is not None:
            from minisweagent.exceptions import Submitted  # after _isolate_env

            raise Submitted({"role": "exit", "content": submission,
                             "extra": {"exit_status": "Submitted", "submission": submission}})

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        # the instance templates render {{system}} {{release}} {{version}} {{machine}}
        return {**self.config, **platform.uname()._asdict(), **kwargs}

    def serialize(self) -> dict[str, Any]:
        limits = dataclasses.asdict(self.limits)
        return {"info": {"config": {
            "environment": {**self.config, "process_limits": limits},
            "environment_type": f"{type(self).__module__}.{type(self).__name__}",
        }}}


# ---- running the agent ------------------------------------------------------------------------


def private_config_dir(trajectory_path: Path) -> Path:
    """mini-swe-agent's global config dir for one run: empty, beside the trajectory (not in
    /tmp, where a killed run would leave it; the parent removes it after a kill)."""
    return trajectory_path.with_name(f".{trajectory_path.stem}.mswea-config")


def _isolate_env(private_dir: str) -> None:
    """Before minisweagent is imported: no ~/.config, no .env, no banner, no price-list
    download, no cost errors for our unpriced model, one try per model call (the server is
    local; a retry would only wait)."""
    for name in list(os.environ):
        if name.startswith(_DROP_PREFIXES) or name.lower() in _DROP_NAMES:
            del os.environ[name]
    os.environ.update({
        "MSWEA_GLOBAL_CONFIG_DIR": private_dir,
        "MSWEA_SILENT_STARTUP": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_OFFLINE_MODE": "true",
        "MSWEA_COST_TRACKING": "ignore_errors",
        "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT": "1",
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
    })


def _quiet_logging() -> None:
    """mini-swe-agent's import gives its logger a Rich handler on stdout: plain stderr
    instead, and litellm's 'Provider List' print is turned off."""
    import litellm

    litellm.suppress_debug_info = True
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    msa = logging.getLogger("minisweagent")
    for old in list(msa.handlers):
        msa.removeHandler(old)
    msa.addHandler(handler)
    msa.setLevel(logging.INFO)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)


def _build_model(spec: HostSpec, model_cfg: dict[str, Any]) -> Any:
    from minisweagent.models.litellm_model import LitellmModel
    from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel

    model_kwargs = {**(model_cfg.get("model_kwargs") or {}), "api_base": spec.base_url,
                    "api_key": API_KEY, "temperature": spec.temperature}
    if spec.seed is not None:
        # the shipped drop_params: true lets litellm drop it where a provider refuses seeds
        model_kwargs["seed"] = spec.seed
    kwargs = {**model_cfg, "model_name": f"openai/{spec.model_name}",
              "model_kwargs": model_kwargs, "cost_tracking": "ignore_errors"}
    kwargs.pop("model_class", None)
    cls = LitellmTextbasedModel if spec.config == "default" else LitellmModel
    return cls(**kwargs)


def _build_agent(spec: HostSpec) -> tuple[Any, SandboxEnvironment]:
    import yaml
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.config import builtin_config_dir

    # the shipped file itself: get_config_from_spec would prefer a same-named file in cwd
    cfg = yaml.safe_load((builtin_config_dir / CONFIGS[spec.config]).read_text("utf-8"))
    env = SandboxEnvironment(spec.workdir, spec.process_limits,
                             (cfg.get("environment") or {}).get("env") or {})
    model = _build_model(spec, cfg.get("model") or {})
    wall = math.ceil(spec.wall_s) if spec.wall_s > 0 else 0
    agent = DefaultAgent(model, env, **{
        **(cfg.get("agent") or {}), "step_limit": spec.step_limit, "cost_limit": 0.0,
        "wall_time_limit_seconds": wall, "output_path": spec.trajectory_path})
    return agent, env


@dataclass
class _Progress:
    """What is known of a run so far, so a result can be written when the agent raises."""

    agent: Any = None
    env: SandboxEnvironment | None = None


def _run_agent(spec: HostSpec, progress: _Progress) -> dict[str, Any]:
    _quiet_logging()
    from minisweagent import __version__

    progress.agent, progress.env = _build_agent(spec)
    print(f"mini_swe_host: mini-swe-agent {__version__}, config {spec.config}, model "
          f"{spec.model_name} at {spec.base_url}, workdir {spec.workdir}", file=sys.stderr)
    return progress.agent.run(spec.issue)


def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= _ERROR_CHARS else line[: _ERROR_CHARS - 3] + "..."


def _result(progress: _Progress, outcome: dict[str, Any] | None,
            error: BaseException | None) -> dict[str, Any]:
    agent, env = progress.agent, progress.env
    if outcome is None and agent is not None and agent.messages:
        # DefaultAgent adds an exit message (exit_status = the exception's class) first
        outcome = agent.messages[-1].get("extra") or {}
    outcome = outcome or {}
    return {
        "exit_status": outcome.get("exit_status") or (type(error).__name__ if error else ""),
        "submission": outcome.get("submission") or "",
        "n_calls": agent.n_calls if agent is not None else 0,
        "commands": env.n_commands if env is not None else 0,
        "error": one_line(error) if error is not None else None,
    }


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)  # the parent never reads half a file


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m edgeagent.harness.mini_swe_host SPEC.json", file=sys.stderr)
        return 2
    try:
        spec = load_spec(Path(args[0]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"mini_swe_host: bad spec {args[0]}: {one_line(exc)}", file=sys.stderr)
        return 2
    private = private_config_dir(spec.trajectory_path)
    progress, outcome, error = _Progress(), None, None
    try:
        shutil.rmtree(private, ignore_errors=True)  # a killed run's: no .env may be in it
        private.mkdir(parents=True)
        _isolate_env(str(private))
        outcome = _run_agent(spec, progress)
    except Exception as exc:
        error = exc
        traceback.print_exc(file=sys.stderr)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    result = _result(progress, outcome, error)
    _write_json(spec.result_path, result)
    print(f"mini_swe_host: {json.dumps(result)}", file=sys.stderr)
    return 1 if error is not None else 0


def _stdout_to_stderr() -> None:
    # Nothing may reach stdout (Rich, litellm and print all write there), so file
    # descriptor 1 becomes a copy of 2: C code and subprocesses follow too.
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())


if __name__ == "__main__":
    _stdout_to_stderr()
    sys.exit(main())
