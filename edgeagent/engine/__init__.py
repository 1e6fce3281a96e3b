"""How tokens are produced: one Engine protocol (base.py), two backends (llamacpp.py in
process with its own decode loop and speculative.py; http.py for OpenAI-compatible servers),
and build_engine(config), the one place that chooses between them. The engine imports
neither the agent nor the sandbox: the tool-call grammar arrives with its JSON schema as a
`Grammar`."""

from ..exports import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    "base": ("ContextOverflow", "Engine", "EngineError", "Generation", "Grammar", "Message",
             "gbnf_of", "json_schema_of"),
    "build": ("EngineFactory", "build_engine", "llamacpp_engine"),
    "chat_template": ("CHATML_TEMPLATE", "ChatTemplate"),
    "http": ("EndpointSettings", "HttpEngine", "base_url", "endpoint_engine"),
    "llamacpp": ("LlamaCppEngine",),
    "llamacpp_ops": ("evaluate_after_prefix", "truncate_head_tail"),
    "speculative": ("DraftModel", "PromptLookup", "Speculator", "decode_speculative",
                    "eval_with_logits", "rollback"),
    "vocab": ("Vocabulary",),
})
