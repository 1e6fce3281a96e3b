"""logscan: access log summaries."""
