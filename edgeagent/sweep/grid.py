"""The sweep's grid: llama-bench-style comma lists of engine settings expanded into
configurations, in a documented order, each checked as `edgeagent run` would check it.

Order: the product of the lists in SETTINGS order, the last setting varying fastest (as
nested loops written in that order), so `--threads 1,2 --flash-attn off,on` gives
(1, off), (1, on), (2, off), (2, on). `--kv-type` sets K and V together: one list, not a product.
A configuration llama.cpp would refuse (a quantized V cache without flash attention, n_ubatch
above n_batch) is kept in the grid as skipped, with the reason, rather than failing the sweep.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import KV_CACHE_TYPES, load_config
from ..engine import flash_attn_mode
from ..errors import ConfigError, UserError
from ..settings import ON_OFF_WORDS

# the swept settings, in expansion order (the flag is the key with dashes)
SETTINGS = ("threads", "threads_batch", "n_batch", "n_ubatch", "flash_attn", "kv_type",
            "type_k", "type_v", "gpu_layers", "mlock", "mmap")
# short column names for labels and tables
SHORT = {"threads": "t", "threads_batch": "tb", "n_batch": "b", "n_ubatch": "ub",
         "flash_attn": "fa", "kv_type": "kv", "type_k": "ctk", "type_v": "ctv",
         "gpu_layers": "ngl", "mlock": "mlock", "mmap": "mmap"}


@dataclass(frozen=True)
class Configuration:
    """One point of the grid: the swept settings' values (config keys), and why llama.cpp
    would refuse it (None: it runs)."""

    id: str  # c01, c02, ... in grid order
    settings: tuple[tuple[str, Any], ...]  # (config key, value), kv_type already split
    skipped: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.settings)

    def label(self) -> str:
        """`t=1 fa=1 kv=q8_0`: the settings in llama-bench's short names."""
        d = self.as_dict()
        parts = []
        for key in SETTINGS:
            if key == "kv_type":
                continue
            if key in d:
                parts.append(f"{SHORT[key]}={label_value(d[key])}")
        if "type_k" in d and d.get("type_k") == d.get("type_v"):
            parts = [p for p in parts if not p.startswith(("ctk=", "ctv="))]
            parts.append(f"kv={d['type_k']}")
        return " ".join(parts) or "defaults"


def label_value(value: Any) -> str:
    """A setting as llama-bench writes it: 1/0 for on/off (fa=1), anything else as is."""
    if isinstance(value, bool):
        value = "on" if value else "off"
    return {"on": "1", "off": "0"}.get(str(value), str(value))


def _parse_one(key: str, text: str) -> Any:
    flag = "--" + key.replace("_", "-")
    text = text.strip()
    if key == "flash_attn":
        mode = flash_attn_mode(text)
        if mode is None:
            raise UserError(f"{flag}: expected a comma list of auto, on and off (1/0), "
                            f"got {text!r}")
        return mode
    if key in ("mlock", "mmap"):
        if text.lower() not in ON_OFF_WORDS:
            raise UserError(f"{flag}: expected a comma list of 1 and 0 (on/off), got {text!r}")
        return ON_OFF_WORDS[text.lower()]
    if key in ("kv_type", "type_k", "type_v"):
        if text not in KV_CACHE_TYPES:
            raise UserError(f"{flag}: each value must be one of {', '.join(KV_CACHE_TYPES)}, "
                            f"got {text!r}")
        return text
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"{flag}: expected a comma list of integers (e.g. 1,2), got {text!r}"
                        ) from None
    if value < 0:
        raise UserError(f"{flag}: values must not be negative, got {value}")
    return value


def parse_lists(given: Mapping[str, str | None]) -> dict[str, list[Any]]:
    """Flag text (`"1,2"`) -> values, per swept setting given; repeats are kept once."""
    lists: dict[str, list[Any]] = {}
    for key in SETTINGS:
        text = given.get(key)
        if text is None:
            continue
        values = [_parse_one(key, part) for part in str(text).split(",") if part.strip()]
        if not values:
            raise UserError(f"--{key.replace('_', '-')}: give at least one value")
        lists[key] = list(dict.fromkeys(values))
    if "kv_type" in lists and ("type_k" in lists or "type_v" in lists):
        raise UserError("--kv-type sets K and V together: give it, or --type-k / --type-v, "
                        "not both")
    return lists


def expand(lists: Mapping[str, Sequence[Any]], base: Mapping[str, Any],
           check: Callable[[dict[str, Any]], None] | None = None) -> list[Configuration]:
    """Every combination, in SETTINGS order (the last varies fastest); each checked with
    `check` (default: load_config over `base`), a refusal kept as `skipped`."""
    check = check or (lambda overrides: _check_config(base, overrides))
    keys = [k for k in SETTINGS if k in lists]
    out = []
    for n, values in enumerate(itertools.product(*(lists[k] for k in keys)), start=1):
        settings: list[tuple[str, Any]] = []
        for key, value in zip(keys, values, strict=True):
            if key == "kv_type":
                settings += [("type_k", value), ("type_v", value)]
            else:
                settings.append((key, value))
        skipped = None
        try:
            check(dict(settings))
        except ConfigError as exc:
            skipped = str(exc)
        out.append(Configuration(f"c{n:02d}", tuple(settings), skipped))
    return out


def _check_config(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> None:
    load_config(None, {**base, **overrides})
