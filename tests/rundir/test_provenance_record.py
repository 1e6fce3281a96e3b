"""provenance.json read as a frozen record: the sections a reader needs are named, a key this
version does not name is kept (never dropped), and writing it back gives the file's content."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from edgeagent.rundir import PROVENANCE_FILE, Provenance, read_provenance

RECORDED = {
    "edgeagent_version": "0.1.0",
    "device": {"cpu_model": "AMD EPYC", "memory_bandwidth": {"gbs": 21.5}},
    "model": {"name": "qwen", "sha256": "ab" * 32, "model_size_bytes": 491400032},
    "power": {"sources": [{"name": "rapl:package-0", "kind": "counter"}],
              "total": {"label": "RAPL package", "sources": ["rapl:package-0"]}},
    "power_null_reason": None,
    "seed": 42,
    "config": {"n_ctx": 8192},
    "replay": {"max_new_tokens": 1024},
    "tool_format": {"resolved": "native"},
    "a_later_section": [1, 2],
}


def test_the_record_names_what_readers_need_and_keeps_the_rest() -> None:
    prov = Provenance.from_dict(RECORDED)
    assert prov.model_sha256 == "ab" * 32
    assert prov.power_total["label"] == "RAPL package"
    assert [s["name"] for s in prov.power_sources] == ["rapl:package-0"]
    assert prov.memory_bandwidth["gbs"] == 21.5
    assert prov.section("replay") == {"max_new_tokens": 1024}
    assert prov.section("a_later_section") == [1, 2]
    assert prov.section("accuracy") is None
    assert prov.to_dict() == {**RECORDED, "sandbox_isolation": {}, "interference": {}}


def test_it_is_frozen_and_its_sections_read_only() -> None:
    prov = Provenance.from_dict(RECORDED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        prov.seed = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        prov.model["name"] = "other"  # type: ignore[index]


def test_a_run_cut_short_or_an_old_one_reads_as_empty_sections() -> None:
    prov = Provenance.from_dict({"power": None, "model": None})
    assert prov.power_total == {} and prov.model_sha256 is None
    assert prov.task_tiers is None and prov.memory_bandwidth == {}


def test_read_provenance_reads_the_run_directorys_file(tmp_path: Path) -> None:
    assert read_provenance(tmp_path) is None
    (tmp_path / PROVENANCE_FILE).write_text(json.dumps(RECORDED), encoding="utf-8")
    prov = read_provenance(tmp_path)
    assert prov is not None and prov.seed == 42
    assert prov.section("tool_format") == {"resolved": "native"}
