"""edgeagent: the time and energy of whole coding-agent trajectories on edge devices."""

__version__ = "0.1.0"
