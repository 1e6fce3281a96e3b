"""Settings: defaults, then an INI file, then environment variables (highest priority).

Environment variables: PKG_UPPER_CURRENCY_SYMBOL, PKG_UPPER_PAGE_SIZE, PKG_UPPER_WAREHOUSE.
The INI file has one [PKG] section with the same keys in lower case.
"""

from __future__ import annotations

import configparser
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from .core.errors import ConfigError

ENV_PREFIX = "PKG_UPPER"


@dataclass(frozen=True)
class Settings:
    currency_symbol: str = "€"
    page_size: int = 50
    warehouse: str = ""


def _coerce(key: str, value: str) -> object:
    if key == "page_size":
        try:
            size = int(value)
        except ValueError:
            raise ConfigError(f"page_size must be a whole number, got {value!r}") from None
        if not 1 <= size <= 500:
            raise ConfigError(f"page_size must be between 1 and 500, got {size}")
        return size
    return value


def load_settings(path: Path | None = None, env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    settings = Settings()
    keys = Settings.__dataclass_fields__
    if path is not None:
        parser = configparser.ConfigParser()
        if not parser.read(path, encoding="utf-8"):
            raise ConfigError(f"cannot read settings file {path}")
        section = parser["PKG"] if parser.has_section("PKG") else {}
        for key, value in section.items():
            if key not in keys:
                raise ConfigError(f"{path}: unknown setting {key!r}")
            settings = replace(settings, **{key: _coerce(key, value)})
    for key in keys:
        value = env.get(ENV_PREFIX + key.upper())
        if value is not None:
            settings = replace(settings, **{key: _coerce(key, value)})
    return settings
