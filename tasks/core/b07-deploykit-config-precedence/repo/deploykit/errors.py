class ConfigError(Exception):
    """A setting that cannot be read or converted; the message names its source."""
