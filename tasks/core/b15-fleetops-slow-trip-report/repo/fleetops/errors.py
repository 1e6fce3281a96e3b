"""Exceptions raised by fleetops; the CLI turns them into exit code 2."""


class FleetError(Exception):
    """Base class of every fleetops error."""


class ValidationError(FleetError):
    """A record field has a wrong type or value; the message names the field."""


class NotFoundError(FleetError):
    """A record id that no store holds."""


class DuplicateError(FleetError):
    """A record id that a store already holds."""
