"""How tokens are produced: one Engine protocol (base.py), two backends (llamacpp.py in
process with its own decode loop and speculative.py; http.py for OpenAI-compatible servers),
and build_engine(config), the one place that chooses between them. The engine imports
neither the agent, the sandbox nor the run's config (it owns EngineSettings, which the
config builds): the tool-call grammar arrives with its JSON schema as a `Grammar`; native
tool calls (tool_format.py) are read per template family."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "base": ("ContextOverflow", "Engine", "EngineError", "Generation", "Grammar", "Message",
             "TOOL_CHOICES", "ToolCall", "TurnTimeout", "check_tool_choice", "gbnf_of",
             "json_schema_of"),
    "build": ("EngineConfig", "EngineFactory", "build_engine", "llamacpp_engine"),
    "chat_template": ("CHATML_TEMPLATE", "ChatTemplate", "template_message"),
    "greedy": ("GreedyChooser", "StartAllowed", "TokenLog"),
    "endpoint_settings": ("CONSTRAINTS", "EndpointConfig"),
    "http": ("EndpointSettings", "HttpEngine", "SERVER_REFUSED_CONTEXT", "base_url",
             "endpoint_engine", "wire_message"),
    "llamacpp": ("LlamaCppEngine",),
    "llamacpp_ops": ("evaluate_after_prefix", "truncate_head_tail"),
    "llamacpp_settings": ("EngineSettings", "FLASH_ATTN_MODES", "GGML_TYPES", "LlamaConfig",
                          "SamplingConfig", "SpecConfig", "SpecSettings", "flash_attn_arg",
                          "flash_attn_mode", "kv_bytes_per_token", "parse_spec", "read_back",
                          "resolve_flash_attn", "row_bytes"),
    "threads": ("DEFAULT_POLICY", "POLICIES", "POLICY_ENV", "ThreadPolicy", "apply_thread_policy",
                "default_threads", "policy_named"),
    "tool_format": ("FAMILIES", "ParsedCalls", "call_id", "detect_family", "parse_tool_calls",
                    "single_token_markers", "tool_call_grammar"),
    "server_window": ("context_refusal", "limit_in", "server_context"),
    "speculative": ("DraftModel", "PromptLookup", "SpeculativeTarget", "Speculator",
                    "build_speculator", "decode_speculative", "eval_with_logits", "rollback"),
    "vocab": ("Vocabulary",),
    "llama_server": ("BUILD_COMMAND", "cached_versions", "find_llama_server",
                     "installed_llama_cpp_version", "llama_server_dir", "server_version"),
})
