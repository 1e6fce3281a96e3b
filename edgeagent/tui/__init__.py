"""Terminal UI (textual): the live dashboard of `edgeagent run` and the `edgeagent view`
browser. Importing this package does not import textual; see launch.py."""
