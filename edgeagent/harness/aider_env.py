"""aider's own environment: `edgeagent agents install aider` makes a virtual environment of its
own holding the pinned aider-chat, and `--agent aider` runs its `aider` from there.

Why an environment of its own and not an extra beside ours: aider-chat pins most of its ~100
dependencies exactly (litellm, openai, numpy, tokenizers, tree-sitter ...), which conflict with
ours and with the other extras' (mini-swe-agent's litellm, bfcl-eval's pins); pip cannot hold
both in one environment. A separate one, as pipx would make, keeps each side's pins whole; the
sandbox shows it read-only to the agent's processes (ProcessLimits.show).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError

AIDER_PACKAGE = "aider-chat"
AIDER_VERSION = "0.86.2"
INSTALL_HINT = "run `edgeagent agents install aider` (a virtual environment of its own)"
# written last by the install: an environment without it is a broken or partial install
_INSTALLED_MARK = ".edgeagent-installed"


def agents_dir() -> Path:
    """Where external agents' environments live: $EDGEAGENT_AGENTS_DIR, else
    ~/.cache/edgeagent/agents."""
    env = os.environ.get("EDGEAGENT_AGENTS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "edgeagent" / "agents"


def aider_env() -> Path:
    return agents_dir() / f"{AIDER_PACKAGE}-{AIDER_VERSION}"


def aider_program() -> Path:
    return aider_env() / "bin" / "aider"


def aider_available() -> str | None:
    """None when the pinned aider is installed, else one line saying how to fix it."""
    mark = aider_env() / _INSTALLED_MARK
    if not mark.is_file() or not os.access(aider_program(), os.X_OK):
        return f"aider {AIDER_VERSION} is not installed at {aider_env()}: {INSTALL_HINT}"
    return None


def install_aider(say: Callable[[str], None] = print, force: bool = False) -> Path:
    """Make the environment and pip-install aider-chat==AIDER_VERSION into it, pip's own
    progress shown; a partial environment from a failed try is removed first. Returns it."""
    env = aider_env()
    if aider_available() is None and not force:
        say(f"aider {AIDER_VERSION} is already installed at {env}")
        return env
    if env.exists():
        shutil.rmtree(env)
    env.parent.mkdir(parents=True, exist_ok=True)
    say(f"making {env} (a virtual environment of its own)")
    # the base interpreter, not ours: the new environment must not see our site-packages
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    python = str(base) if base.exists() else sys.executable
    _step([python, "-m", "venv", str(env)], "making the environment")
    say(f"installing {AIDER_PACKAGE}=={AIDER_VERSION} (a few minutes)")
    _step([str(env / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
           f"{AIDER_PACKAGE}=={AIDER_VERSION}"], f"pip install {AIDER_PACKAGE}=={AIDER_VERSION}")
    _step([str(aider_program()), "--version"], "running the installed aider")
    (env / _INSTALLED_MARK).write_text(f"{AIDER_PACKAGE}=={AIDER_VERSION}\n")
    say(f"aider {AIDER_VERSION} installed: {aider_program()}")
    return env


def _step(argv: list[str], what: str) -> None:
    """Run one install step, its output on the terminal; a failure is one ConfigError line."""
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise ConfigError(f"aider install: {what} failed: {exc}") from exc
    if done.returncode != 0:
        raise ConfigError(f"aider install: {what} exited {done.returncode}; check the network "
                          f"to the package index, then run it again ({aider_env()} is removed "
                          "and remade)")
