"""load_config: defaults <- YAML file <- CLI overrides, and errors naming file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgeagent.config import RunConfig, effective_max_steps, load_config
from edgeagent.errors import ConfigError, UserError
from edgeagent.models import DEFAULT_MODEL


def write(tmp_path: Path, text: str, name: str = "run.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_defaults() -> None:
    config = load_config()
    assert config == RunConfig()
    assert config.model == DEFAULT_MODEL
    assert config.suite == "smoke"
    assert config.tasks is None
    assert config.max_steps is None
    assert config.grammar is True
    assert config.n_ctx == 8192
    assert config.temperature == 0.0
    assert effective_max_steps(config, None) == 20
    assert effective_max_steps(config, 12) == 12  # the task's own limit


def test_file_values_are_read(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "model: /models/x.gguf\n"
        "suite: smoke\n"
        "tasks: [fix-add, fix-shout]\n"
        "max_steps: 7\n"
        "wall_s: 30\n"
        "grammar: false\n"
        "n_ctx: 4096\n"
        "temperature: 0.5\n"
        "threads: null\n",
    )
    config = load_config(path)
    assert config.model == "/models/x.gguf"
    assert config.tasks == ("fix-add", "fix-shout")
    assert config.max_steps == 7
    assert config.wall_s == 30.0 and isinstance(config.wall_s, float)
    assert config.grammar is False
    assert config.n_ctx == 4096
    assert config.temperature == 0.5
    assert config.threads is None
    assert effective_max_steps(config, 12) == 7  # the run's limit wins over the task's
    assert config.max_new_tokens == RunConfig().max_new_tokens  # unset keys keep defaults


def test_empty_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "# nothing set\n")) == RunConfig()


def test_cli_overrides_win_over_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "max_steps: 7\nn_ctx: 4096\nsuite: smoke\ngrammar: true\n")
    config = load_config(
        path, {"max_steps": 3, "n_ctx": None, "grammar": False, "tasks": ["fix-add"]}
    )
    assert config.max_steps == 3
    assert config.n_ctx == 4096  # None means "not given on the command line"
    assert config.grammar is False
    assert config.tasks == ("fix-add",)
    assert config.suite == "smoke"


def test_to_dict_round_trips(tmp_path: Path) -> None:
    config = load_config(None, {"tasks": ["fix-add"], "max_steps": 2})
    data = config.to_dict()
    assert data["tasks"] == ["fix-add"]
    assert load_config(None, {k: v for k, v in data.items() if v is not None}) == config


def test_unknown_key_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(tmp_path, "suite: smoke\nmax_steps: 3\nmax_stpes: 4\n", name="bad-key.yaml")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "bad-key.yaml" in message
    assert f"{path}:3" in message
    assert "max_stpes" in message
    assert "max_steps" in message  # the known keys are listed
    assert isinstance(info.value, UserError) and info.value.exit_code == 2


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        ('max_steps: "abc"\n', "max_steps", 1),
        ("suite: smoke\ngrammar: 3\n", "grammar", 2),
        ("n_ctx: 2048.5\n", "n_ctx", 1),
        ("max_steps: true\n", "max_steps", 1),
        ("temperature: hot\n", "temperature", 1),
        ("tasks: 5\n", "tasks", 1),
        ("model: 12\n", "model", 1),
        ("model: null\n", "model", 1),
    ],
)
def test_wrong_type_names_file_and_key(tmp_path: Path, text: str, key: str, line: int) -> None:
    path = write(tmp_path, text, name="typed.yaml")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert f"{path}:{line}" in message
    assert f"'{key}'" in message
    assert "must be" in message


def test_invalid_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "suite: smoke\nmax_steps: [1, 2\nn_ctx: 4096\n", name="broken.yaml")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    assert "line " in message
    assert "invalid YAML" in message


def test_non_mapping_file_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "- max_steps: 3\n", name="list.yaml")
    with pytest.raises(ConfigError, match="mapping") as info:
        load_config(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("text", ["max_steps: -1\n", "wall_s: -0.5\n", "n_ctx: -4096\n"])
def test_negative_value_is_rejected(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    key = text.split(":")[0]
    with pytest.raises(ConfigError, match="negative") as info:
        load_config(path)
    assert f"{path}:1" in str(info.value) and f"'{key}'" in str(info.value)


def test_negative_override_names_the_flag() -> None:
    with pytest.raises(ConfigError) as info:
        load_config(None, {"max_steps": -2})
    assert "--max-steps" in str(info.value) and "negative" in str(info.value)


def test_out_of_range_values_are_rejected() -> None:
    with pytest.raises(ConfigError, match="max_steps"):
        load_config(None, {"max_steps": 0})
    with pytest.raises(ConfigError, match="n_ctx"):
        load_config(None, {"n_ctx": 256})


def test_missing_config_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "run.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(missing)
    assert str(missing) in str(info.value)
