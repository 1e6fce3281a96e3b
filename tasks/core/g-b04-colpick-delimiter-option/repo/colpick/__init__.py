"""colpick: pick CSV columns by header name."""
