"""Reading each source into a dict of the settings it sets (and only those)."""

import configparser
import os

from deploykit.config.convert import convert
from deploykit.config.schema import ENV_PREFIX, SETTINGS
from deploykit.errors import ConfigError

SECTION = "deploykit"


def from_file(path, required):
    """Settings in the [deploykit] section of an INI file."""
    if not os.path.exists(path):
        if required:
            raise ConfigError(f"{path}: config file not found")
        return {}
    parser = configparser.ConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if not parser.has_section(SECTION):
        return {}
    found = {}
    for key, value in parser.items(SECTION):
        if key not in SETTINGS:
            raise ConfigError(f"{path}: unknown setting {key!r}")
        found[key] = convert(value, SETTINGS[key], f"{path}: {key}")
    return found


def from_env(environ):
    """Settings given as DEPLOYKIT_<NAME> environment variables."""
    found = {}
    for name in SETTINGS:
        var = ENV_PREFIX + name.upper()
        if var in environ:
            found[name] = environ[var]
    return found


def from_flags(args):
    """Settings given on the command line (argparse leaves the others as None)."""
    return {name: getattr(args, name) for name in SETTINGS if getattr(args, name) is not None}
