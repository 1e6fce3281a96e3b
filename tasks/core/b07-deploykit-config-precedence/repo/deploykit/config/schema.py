"""The settings deploykit knows, their types and defaults (docs/configuration.md)."""

SETTINGS = {
    "host": str,
    "port": int,
    "user": str,
    "timeout": int,
    "dry_run": bool,
}

DEFAULTS = {
    "host": "localhost",
    "port": 22,
    "user": "deploy",
    "timeout": 30,
    "dry_run": False,
}

ENV_PREFIX = "DEPLOYKIT_"
