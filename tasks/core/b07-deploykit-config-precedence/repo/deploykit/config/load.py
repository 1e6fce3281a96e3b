"""Combining the sources in the documented order."""

from deploykit.config.schema import DEFAULTS
from deploykit.config.sources import from_env, from_file, from_flags

DEFAULT_CONFIG = "deploykit.ini"


def load_settings(args, environ):
    """The final settings for parsed CLI args and an environment mapping."""
    path = args.config or DEFAULT_CONFIG
    settings = dict(DEFAULTS)
    settings.update(from_file(path, required=args.config is not None))
    settings.update(from_flags(args))
    settings.update(from_env(environ))
    return settings
