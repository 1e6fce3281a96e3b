"""The python -m fleetops command line."""
