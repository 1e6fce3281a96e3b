"""fleetops: fleet-management toolkit."""

__version__ = "2.3.0"
