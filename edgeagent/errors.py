"""Errors a user can cause. The CLI prints their message on one line and exits with code 2."""


class UserError(Exception):
    """Bad input from the user: message names the file/key/path and says how to fix it."""

    exit_code = 2


class ConfigError(UserError):
    """A config file or CLI override that cannot be used."""


class ModelError(UserError):
    """A model that is missing, corrupt, unknown or fails its sha256 check."""


class SuiteError(UserError):
    """An unknown suite or task, a malformed task.yaml, or a task whose tests cannot run."""


class StoreError(UserError):
    """An output directory that cannot be written, or a run directory that cannot be read."""
