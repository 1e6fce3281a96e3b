"""The exceptions the application raises on purpose."""


class AppError(Exception):
    """Base class: every error the application raises deliberately."""


class ValidationError(AppError, ValueError):
    """A record or an argument breaks a rule; the message names the field."""


class NotFoundError(AppError, KeyError):
    """No record with the given id."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not found"


class DuplicateError(AppError):
    """A record with the same id already exists."""


class ImportProblem(AppError, ValueError):
    """A CSV or JSON import that cannot be read; the message names the line."""


class ConfigError(AppError):
    """A settings file or environment variable with a bad value."""
