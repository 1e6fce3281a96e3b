"""PKG: the back-office application (models, storage, services, reports)."""

__version__ = "2.4.0"
