"""The run's OpenAI-compatible endpoint, as its config asks for it (a section of RunConfig:
each key's default, help and flag declared here once). http.py's EndpointSettings is what the
HTTP engine is built with from it."""

from __future__ import annotations

from dataclasses import dataclass

from ..settings import setting

# how the tool-call grammar is sent; auto: GBNF to llama.cpp servers, a JSON schema to others
CONSTRAINTS = ("auto", "gbnf", "json_schema", "json_object", "none")


@dataclass(frozen=True)
class EndpointConfig:
    """An OpenAI-compatible server that decodes the run instead of the in-process engine
    (a section of RunConfig)."""

    endpoint: str | None = setting(
        None, "drive this /v1/chat/completions server instead of loading --model",
        metavar="URL", default_text="none: the in-process engine")
    api_key_env: str | None = setting(
        None, "environment variable that holds the endpoint's API key", metavar="VAR",
        default_text="none")
    served_model: str | None = setting(
        None, "model name to request", metavar="NAME",
        default_text="the first one the server lists")
    endpoint_constraint: str = setting(
        "auto", "how the tool-call grammar is sent (auto: GBNF to llama.cpp servers, a JSON "
        "schema to others, weaker forms if refused)", choices=CONSTRAINTS)
    turn_timeout_s: float = setting(
        600.0, "seconds one endpoint turn may take, retries included; replay bounds "
        "in-process turns too", minimum=0.1)
    endpoint_retries: int = setting(3, "times a failed endpoint request is tried again",
                                    metavar="N")
    tokenizer: str | None = setting(
        None, "count tokens with this GGUF's vocabulary when the server sends no counts",
        metavar="GGUF", default_text="none: counts the server does not send are estimated "
        "and marked so")
