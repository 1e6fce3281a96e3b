"""Settings: schema, sources (file, environment, flags) and how they merge."""

from deploykit.config.load import load_settings
from deploykit.config.schema import DEFAULTS, SETTINGS

__all__ = ["DEFAULTS", "SETTINGS", "load_settings"]
