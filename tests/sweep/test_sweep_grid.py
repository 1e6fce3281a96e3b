"""The grid expands as docs/sweep.md says: the product of the lists in the documented order
(the last setting varies fastest), --kv-type setting K and V together, a configuration
llama.cpp would refuse kept as skipped with the reason; bad lists are one line, exit 2."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from edgeagent import cli
from edgeagent.sweep import SETTINGS


def _dry_run(capsys: pytest.CaptureFixture[str], model: Path, *flags: str) -> list[str]:
    code = cli.main(["sweep", "--model", str(model), "--conversations", "1", *flags,
                     "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0, out
    return [line.strip() for line in out.splitlines() if re.match(r"\s+c\d\d ", line)]


def test_lists_expand_in_the_documented_order(tiny_model_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    lists = {"threads": ["1", "2"], "flash_attn": ["0", "1"], "kv_type": ["f16", "q8_0"],
             "n_batch": ["256", "512"]}
    flags = [x for key, values in lists.items()
             for x in (f"--{key.replace('_', '-')}", ",".join(values))]
    rows = _dry_run(capsys, tiny_model_path, *flags)
    # nested loops over the settings in SETTINGS order, the last one innermost
    keys = [k for k in SETTINGS if k in lists]
    expected = list(itertools.product(*(lists[k] for k in keys)))
    assert len(rows) == len(expected) == 16
    short = {"threads": "t", "n_batch": "b", "flash_attn": "fa", "kv_type": "kv"}
    for n, (row, values) in enumerate(zip(rows, expected, strict=True), start=1):
        assert row.startswith(f"c{n:02d} ")
        for key, value in zip(keys, values, strict=True):
            assert f"{short[key]}={value}" in row.split("skipped")[0], (row, key)
        # a quantized V cache without flash attention is refused by llama.cpp: kept, skipped
        chosen = dict(zip(keys, values, strict=True))
        quantized_v_without_fa = chosen["flash_attn"] == "0" and chosen["kv_type"] == "q8_0"
        assert ("skipped: " in row) == quantized_v_without_fa, row
        if quantized_v_without_fa:
            assert "needs flash attention" in row


def test_a_single_value_is_a_one_configuration_grid(tiny_model_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["sweep", "--model", str(tiny_model_path), "--threads", "2",
                     "--n-ubatch", "128,1024", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    assert "c01  t=2 ub=128\n" in out
    assert re.search(r"c02  t=2 ub=1024  skipped: .*'n_ubatch' \(1024\) is larger than "
                     r"n_batch \(512\)", out)
    # the first run's command carries the configuration's settings as engine flags
    first = next(line for line in out.splitlines() if line.startswith("first run:"))
    assert "--threads 2 --n-ubatch 128" in first and "replay" in first


@pytest.mark.parametrize(("flags", "says"), [
    (("--threads", "1,x"), "--threads: expected a comma list of integers"),
    (("--flash-attn", "0,maybe"), "--flash-attn: expected a comma list of auto, on and off"),
    (("--kv-type", "f16,q5_1"), "--kv-type: each value must be one of f16, q8_0, q4_0"),
    (("--kv-type", "f16", "--type-k", "q8_0"), "--kv-type sets K and V together"),
    (("--kv-type", "q8_0", "--flash-attn", "0"), "every configuration would be refused"),
    (("--repeats", "0"), "--repeats must be at least 1"),
    (("--n-ctx", "100"), "'n_ctx' must be at least 512"),
    (("--mlperf", "--seed", "3"), "--mlperf sets --seed itself"),
    (("--mlperf", "--suite", "smoke"), "--mlperf is MLPerf's replay settings"),
])
def test_bad_lists_are_one_line_and_exit_2(tiny_model_path: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str],
                                           flags: tuple[str, ...], says: str) -> None:
    code = cli.main(["sweep", "--model", str(tiny_model_path), "--out", str(tmp_path), *flags])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and says in err, err
    assert not list(tmp_path.iterdir())  # nothing was started


def test_mlperf_reaches_every_replay_child(tiny_model_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`sweep --mlperf`: each child replays with `--mlperf` (MLPerf's run settings) and only
    the swept settings beside it, so the preset has nothing to refuse."""
    from edgeagent.cli.main import build_parser

    rows = _dry_run(capsys, tiny_model_path, "--mlperf", "--n-ubatch", "256,512")
    assert rows == ["c01  ub=256", "c02  ub=512"]
    cli.main(["sweep", "--model", str(tiny_model_path), "--mlperf", "--n-ubatch", "256",
              "--dry-run"])
    first = next(line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("first run:"))
    argv = first.removeprefix("first run: edgeagent ").split()
    assert argv[0] == "replay" and "--mlperf" in argv
    assert "--seed" not in argv and "--max-new-tokens" not in argv and "--n-ctx" not in argv
    assert build_parser().parse_args(argv).mlperf is True


def test_a_switch_in_the_shared_settings_reaches_the_children_as_a_bare_flag() -> None:
    """`sweep --allow-interference`: each child gets `--allow-interference` alone (a switch
    takes no value), and its parser accepts it."""
    from edgeagent.cli.main import build_parser
    from edgeagent.sweep.execute import setting_flags

    flags = setting_flags({"allow_interference": True, "n_ctx": 2048})
    assert flags == ["--allow-interference", "--n-ctx", "2048"]
    assert setting_flags({"allow_interference": False}) == []
    args = build_parser().parse_args(["replay", *flags])
    assert args.allow_interference is True
