"""Teacher-forced replay of recorded agent trajectories in MLPerf Edge Agentic's JSONL
format: the dataset (load, check, dump), export of runs and oracles, the per-conversation
replayer and the prompt of every turn, input lengths (ISL) and `--n-ctx auto`, MLPerf's run
settings as one preset (`--mlperf`), the inline score, the result summary (with MLPerf
endpoints' field names), and a synthetic workload. The run around it is edgeagent.run."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "dataset": ("Conversation", "DatasetError", "Row", "ToolCall", "conversations_from_rows",
                "dump_rows", "load_dataset", "parse_row", "select_conversations"),
    "endpoints_schema": ("endpoints_fields", "series_block"),
    "export": ("oracle_conversation", "run_conversations", "specs_from_openai"),
    "isl": ("ContextChoice", "TurnLength", "auto_n_ctx", "distribution", "isl_report", "isl_text",
            "turn_lengths"),
    "preset": ("MLPERF", "Preset", "apply_preset", "require_context"),
    "replayer": ("ConversationResult", "ReplaySettings", "TurnPrompt", "TurnResult",
                 "conversation_start", "native_messages", "replay_conversation", "text_messages",
                 "turn_prompts", "uses_native"),
    "score": ("executables", "mean_score", "mlperf_actions", "model_intent", "multiset_iou",
              "own_actions", "parse_generated_calls", "score_intent", "score_turn", "scored_mean"),
    "result_summary": ("summary_text", "write_summary"),
    "synthetic": ("synthetic_rows", "write_synthetic"),
})
