"""Teacher-forced replay of recorded agent trajectories, in MLPerf Edge Agentic's JSONL format."""
