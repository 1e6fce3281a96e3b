"""edgeagent: the time and energy of whole coding-agent trajectories on edge devices.

The packages: cli (every command), run (live runs and replays), agent, engine, sandbox,
suite, retrieval, meter, replay, results, tui; see docs/architecture.md."""

__all__ = ["__version__"]

__version__ = "0.1.0"
