"""The llama.cpp settings (threads, batches, flash attention, KV cache types, mmap, mlock)
reach llama.cpp: read back from the context through llama.cpp's own getters and its state
size, and recorded with a run; a value llama.cpp would refuse is one line and exit code 2."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import llama_cpp
import pytest

from edgeagent import cli
from edgeagent.config import load_config
from edgeagent.engine.build import llamacpp_engine
from edgeagent.engine.llamacpp_settings import resolve_flash_attn
from edgeagent.errors import ConfigError
from edgeagent.rundir import open_run_db

SETTINGS = {"threads": 1, "threads_batch": 2, "n_batch": 256, "n_ubatch": 64,
            "flash_attn": True, "type_k": "q8_0", "type_v": "q4_0", "mmap": False,
            "mlock": False, "n_ctx": 1024}


def _state_bytes_per_token(engine) -> float:
    """What one more token adds to the sequence's saved state: its K and V in the cache's
    own types, plus llama.cpp's fixed per-cell bookkeeping."""
    llm = engine.llm
    llm.reset()
    llm.eval(llm.tokenize(b"hello world " * 8))
    n1, a = llm.n_tokens, llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    llm.eval(llm.tokenize(b"hello world " * 8))
    n2, b = llm.n_tokens, llama_cpp.llama_state_seq_get_size(llm.ctx, 0)
    return (b - a) / (n2 - n1)


@pytest.mark.slow
def test_each_setting_reaches_the_llama_cpp_context(tiny_kv_model_path: Path) -> None:
    config = load_config(None, {"model": str(tiny_kv_model_path), **SETTINGS})
    engine = llamacpp_engine(tiny_kv_model_path, config.engine_settings())
    try:
        ctx = engine.llm.ctx
        # llama.h's getters, asked here directly
        assert llama_cpp.llama_n_batch(ctx) == SETTINGS["n_batch"]
        assert llama_cpp.llama_n_ubatch(ctx) == SETTINGS["n_ubatch"]
        assert llama_cpp.llama_n_threads(ctx) == SETTINGS["threads"]
        assert llama_cpp.llama_n_threads_batch(ctx) == SETTINGS["threads_batch"]
        # the engine's read-back (getters, llama.cpp's log, /proc) says the same
        back = engine.provenance()["settings_read_back"]
        for key in ("threads", "threads_batch", "n_batch", "n_ubatch", "flash_attn", "type_k",
                    "type_v", "mmap", "mlock"):
            assert back[key] == SETTINGS[key], key
        assert back["gpu_layers"] == 0 and back["load_mode"] == "none"
        assert back["null_reasons"] == {}
        quantized = _state_bytes_per_token(engine)
        kv_quantized = engine.provenance()["kv_bytes_per_token"]
    finally:
        engine.close()
    plain = llamacpp_engine(tiny_kv_model_path, load_config(None, {
        "model": str(tiny_kv_model_path), "n_ctx": 1024, "threads": 1}).engine_settings())
    try:
        f16 = _state_bytes_per_token(plain)
        kv_f16 = plain.provenance()["kv_bytes_per_token"]
        assert plain.provenance()["settings_read_back"]["mmap"] is True
    finally:
        plain.close()
    # the cache really holds q8_0 keys and q4_0 values: a token costs what their blocks
    # cost, and the KV bytes the run records per step are the same
    assert kv_quantized < kv_f16
    assert f16 - quantized == kv_f16 - kv_quantized


def _replay(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["replay", *args])
    return code, out.getvalue()


@pytest.mark.slow
def test_a_run_records_its_settings_peak_rss_and_largest_kv_cache(
    tiny_kv_model_path: Path, tmp_path: Path
) -> None:
    code, text = _replay("--model", str(tiny_kv_model_path), "--conversations", "1",
                         "--max-new-tokens", "4", "--n-ctx", "2048", "--threads", "1",
                         "--threads-batch", "2", "--n-batch", "256", "--n-ubatch", "128",
                         "--flash-attn", "1", "--kv-type", "q8_0", "--out", str(tmp_path))
    assert code == 0, text
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    prov = json.loads((run_dir / "provenance.json").read_text())
    asked = {"threads": 1, "threads_batch": 2, "n_batch": 256, "n_ubatch": 128,
             "flash_attn": "on", "type_k": "q8_0", "type_v": "q8_0"}
    for key, value in asked.items():
        assert prov["model"]["settings"][key] == value, key
        # flash attention is read back as whether the context uses it
        used = True if key == "flash_attn" else value
        assert prov["model"]["settings_read_back"][key] == used, key
        assert prov["config"][key] == value, key
    db = open_run_db(run_dir)
    try:
        run = db.execute("SELECT * FROM runs").fetchone()
        kv = [r[0] for r in db.execute("SELECT kv_cache_bytes FROM steps")]
        tokens = db.execute("SELECT max(context_tokens + decoded_tokens) FROM steps").fetchone()
    finally:
        db.close()
    assert run["kv_cache_bytes_max"] == max(kv)
    assert run["kv_cache_bytes_max"] == tokens[0] * prov["model"]["kv_bytes_per_token"]
    assert run["peak_rss_bytes"] > 0 and "before the model loaded" in run["peak_rss_scope"]
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        cli.main(["report", str(run_dir)])
    assert "flash_attn on, K q8_0, V q8_0" in report.getvalue()
    shown = re.search(r"peak RSS ([\d.]+) MB", report.getvalue())
    assert shown and float(shown.group(1)) == pytest.approx(run["peak_rss_bytes"] / 1e6, 0.01)


@pytest.mark.slow
def test_flash_attention_auto_is_the_default_off_on_the_cpu_and_llama_cpps_elsewhere(
    tiny_kv_model_path: Path
) -> None:
    """Unset, flash attention is `auto`: off where every layer runs on the CPU with an f16 V
    cache (llama.cpp's CPU kernel measured slower, docs/results/long-turns.md); with a
    quantized V cache, which needs the op, llama.cpp's own `auto` (it turns it on). The
    read-back records what the context computes with; `on` and `off` are as asked."""
    config = load_config(None, {"model": str(tiny_kv_model_path), "n_ctx": 1024})
    assert config.flash_attn == "auto"
    for mode, kv, used in (("auto", "f16", False), ("auto", "q8_0", True),
                           ("on", "f16", True), ("off", "f16", False)):
        settings = load_config(None, {"model": str(tiny_kv_model_path), "n_ctx": 1024,
                                      "flash_attn": mode, "type_k": kv, "type_v": kv}
                               ).engine_settings()
        engine = llamacpp_engine(tiny_kv_model_path, settings)
        try:
            prov = engine.provenance()
        finally:
            engine.close()
        assert prov["settings"]["flash_attn"] == mode
        assert prov["settings_read_back"]["flash_attn"] is used, (mode, kv, prov)
    # where layers are offloaded to a GPU, `auto` is llama.cpp's own choice
    assert resolve_flash_attn("auto", on_gpu=True, type_v="f16") == "auto"
    assert resolve_flash_attn("on", on_gpu=False, type_v="f16") == "on"
    # configs written before `auto` (flash_attn: true/false) still load, as on/off
    assert load_config(None, {"flash_attn": False}).flash_attn == "off"
    with pytest.raises(ConfigError, match="must be one of auto, on, off"):
        load_config(None, {"flash_attn": "sometimes"})


@pytest.mark.parametrize(("flags", "says"), [
    (("--kv-type", "q8_0", "--flash-attn", "off"), "needs flash attention"),
    (("--type-v", "q4_0", "--flash-attn", "0"), "needs flash attention"),
    (("--n-batch", "128", "--n-ubatch", "256"), "'n_ubatch' (256) is larger than n_batch"),
    (("--n-batch", "0"), "'n_batch' must be at least 1"),
])
def test_settings_llama_cpp_would_refuse_are_one_line_and_exit_2(
    tiny_model_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    flags: tuple[str, ...], says: str,
) -> None:
    code = cli.main(["replay", "--model", str(tiny_model_path), "--out", str(tmp_path),
                     *flags])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and says in err, err
    assert not list(tmp_path.iterdir())  # refused before a run directory was made


def test_a_bad_kv_type_in_a_config_file_names_the_line(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("threads: 1\ntype_k: q5_1\n")
    with pytest.raises(ConfigError) as exc:
        load_config(cfg)
    assert f"{cfg}:2: key 'type_k' must be one of f16, q8_0, q4_0" in str(exc.value)


@pytest.mark.slow
def test_a_context_llama_cpp_refuses_says_why(tiny_model_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    # the default tiny model's heads hold 16 values: a q8_0 block is 32
    code = cli.main(["replay", "--model", str(tiny_model_path), "--out", str(tmp_path),
                     "--flash-attn", "1", "--kv-type", "q8_0", "--threads", "1"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "cannot make a context" in err and "does not divide" in err
