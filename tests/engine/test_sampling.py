"""Sampling settings on the tiny model: temperature, top-p, repeat penalty and seed reach
llama.cpp's sampler (each changes the tokens the way it should) and the run's record; replay
stays greedy and records that it ignored them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.base import Message
from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings
from edgeagent.errors import ConfigError
from edgeagent.replay import load_dataset
from edgeagent.run import ReplaySource, default_dataset, execute_replay

MESSAGES = [Message("system", "You are helpful."), Message("user", "Write a poem about cats.")]
TOKENS = 24


def tokens(model: Path, **settings) -> tuple[int, ...]:
    engine = LlamaCppEngine(model, EngineSettings(n_ctx=512, threads=1, **settings))
    return engine.generate(MESSAGES, max_tokens=TOKENS).tokens


@pytest.mark.slow
def test_seed_and_temperature_reach_the_sampler(tiny_model_path: Path) -> None:
    sampled = dict(temperature=1.0, top_p=1.0)
    first = tokens(tiny_model_path, seed=1, **sampled)
    assert tokens(tiny_model_path, seed=1, **sampled) == first  # a seed repeats its draw
    assert tokens(tiny_model_path, seed=2, **sampled) != first
    assert first != tokens(tiny_model_path)  # greedy


@pytest.mark.slow
def test_top_p_reaches_the_sampler(tiny_model_path: Path) -> None:
    # a nucleus this small keeps only the most likely token: sampling becomes the argmax
    assert tokens(tiny_model_path, temperature=0.8, top_p=1e-6, seed=5) == tokens(
        tiny_model_path)
    assert tokens(tiny_model_path, temperature=0.8, top_p=1.0, seed=5) != tokens(
        tiny_model_path)


@pytest.mark.slow
def test_repeat_penalty_reaches_the_sampler(tiny_model_path: Path) -> None:
    greedy = tokens(tiny_model_path)
    assert len(set(greedy)) < len(greedy)  # the random weights repeat a token greedily
    penalised = tokens(tiny_model_path, repeat_penalty=1e6)
    assert len(set(penalised)) == len(penalised)  # every token of the window is penalised


@pytest.mark.slow
def test_the_run_records_the_sampler_and_seed(tiny_model_path: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    cli.main([
        "run", "--model", str(tiny_model_path), "--task", "fix-add", "--out", str(tmp_path),
        "--max-steps", "1", "--max-new-tokens", "8", "--n-ctx", "2048", "--threads", "1",
        "--temperature", "0.7", "--top-p", "0.9", "--repeat-penalty", "1.1", "--seed", "7",
        "--headless",
    ])  # fmt: skip
    run_dir = next(tmp_path.iterdir())
    sampler = json.loads((run_dir / "provenance.json").read_text())["model"]["sampler"]
    assert sampler == {"kind": "sampled", "temperature": 0.7, "repeat_penalty": 1.1,
                       "penalty_last_n": 64, "seed": 7, "top_k": 40, "top_p": 0.9,
                       "min_p": 0.05}
    capsys.readouterr()
    assert cli.main(["report", str(run_dir)]) == 0
    assert ("sampling temperature 0.7, top-p 0.9, top-k 40, min-p 0.05, repeat penalty 1.1 "
            "(last 64 tokens), seed 7") in capsys.readouterr().out


def test_bad_sampling_settings_name_the_key() -> None:
    with pytest.raises(ConfigError, match="top_p"):
        load_config(None, {"top_p": 1.5})
    with pytest.raises(ConfigError, match="repeat_penalty"):
        load_config(None, {"spec": "prompt-lookup", "repeat_penalty": 1.2})


@pytest.mark.slow
def test_replay_stays_greedy_and_says_so(tiny_model_path: Path, tmp_path: Path) -> None:
    path = default_dataset()
    source = ReplaySource(str(path), load_dataset(path)[:1], None, None)
    config = load_config(None, {"model": str(tiny_model_path), "out": str(tmp_path),
                                "temperature": 0.7, "threads": 1, "max_new_tokens": 8,
                                "n_ctx": 4096})
    result = execute_replay(config, source, progress=False)
    prov = json.loads((result.run_dir / "provenance.json").read_text())
    assert prov["model"]["sampler"]["kind"] == "greedy"
    assert prov["replay"]["sampling"] == ("greedy (replay is teacher-forced and greedy; "
                                          "ignored: temperature 0.7, repeat_penalty 1)")
