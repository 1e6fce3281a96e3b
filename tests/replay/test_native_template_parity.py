"""Replay's prompts are token for token the ISL MLPerf counts.

A multi-turn MLPerf-format conversation (tool calls, two results in one tool row,
reasoning_content, a plain assistant turn answered by a user row) is turned into each turn's
messages twice: by MLPerf's recipe, written out here from its harness
(dataset_manager/agentic_inference_dataset.py: one `tool` message per tool result, content
None for calls alone; scripts/agentic_inference_isl_precompute.py: arguments parsed to a
dict, `apply_chat_template(messages, tools=tools, add_generation_prompt=True)`), rendered and
tokenised by `transformers` with the default model's tokenizer rebuilt from its GGUF (vocab,
merges and Qwen2's pre-tokenizer, in `tokenizers`; no torch); and by edgeagent's replayer,
rendered by the engine and tokenised by llama.cpp. Every turn's ids must be identical.

Needs the real default model's GGUF (its template and vocabulary): marked `model`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from paths import FIXTURES

from edgeagent.engine.llamacpp import LlamaCppEngine
from edgeagent.engine.llamacpp_settings import EngineSettings
from edgeagent.models import DEFAULT_MODEL, resolve_model
from edgeagent.replay.dataset import load_dataset
from edgeagent.replay.replayer import conversation_start, native_messages

pytestmark = [pytest.mark.slow, pytest.mark.model]

CONVERSATION = FIXTURES / "mlperf_native_conversation.jsonl"
# Qwen2's pre-tokenizer split (its tokenizer.json; llama.cpp's "qwen2" pre-tokenizer)
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_CONTROL, _USER_DEFINED = 3, 4  # GGUF token types


def mlperf_turns(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each client turn's messages (history + the turn's own), as MLPerf's harness builds
    them, with the ISL script's argument normalisation."""
    history: list[dict[str, Any]] = []
    if rows[0].get("system"):
        history.append({"role": "system", "content": rows[0]["system"]})
    turns = []
    for row in rows:
        if row["role"] == "tool":
            msgs = [{"role": "tool", "tool_call_id": r["tool_call_id"], "content": r["content"]}
                    for r in row["tool_results"]]
        else:
            msg = {k: row[k] for k in ("role", "content", "name", "tool_calls",
                                       "reasoning_content") if row.get(k) is not None}
            if msg["role"] == "assistant" and "tool_calls" in msg and "content" not in msg:
                msg["content"] = None
            if msg.get("tool_calls"):
                msg["tool_calls"] = [
                    {**tc, "function": {**tc["function"],
                                        "arguments": json.loads(tc["function"]["arguments"])}}
                    for tc in msg["tool_calls"]]
            msgs = [msg]
        if row["role"] in ("user", "tool"):
            turns.append(history + msgs)
        history = history + msgs
    return turns


def hf_tokenizer(gguf_path: Path, template: str) -> Any:
    """The model's tokenizer as transformers runs it, rebuilt from the GGUF."""
    import gguf
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    reader = gguf.GGUFReader(str(gguf_path))

    def strings(key: str) -> list[str]:
        f = reader.fields[key]
        return [bytes(f.parts[i]).decode() for i in f.data]

    tokens = strings("tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ", 1)) for m in strings("tokenizer.ggml.merges")]
    f = reader.fields["tokenizer.ggml.token_type"]
    types = [int(f.parts[i][0]) for i in f.data]
    tk = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges))
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tk.decoder = decoders.ByteLevel()
    tk.add_tokens([AddedToken(t, special=ty == _CONTROL, normalized=False)
                   for t, ty in zip(tokens, types, strict=True)
                   if ty in (_CONTROL, _USER_DEFINED)])
    hf = PreTrainedTokenizerFast(tokenizer_object=tk)
    hf.chat_template = template
    return hf


def test_every_turn_is_token_identical_to_transformers_apply_chat_template() -> None:
    model = resolve_model(DEFAULT_MODEL, progress=False)
    engine = LlamaCppEngine(model.path, EngineSettings(n_ctx=4096, threads=1))
    try:
        template = engine.template.source
        assert engine.tool_family == "hermes"
        hf = hf_tokenizer(model.path, template)
        raw = [json.loads(line) for line in CONVERSATION.read_text().splitlines()]
        tools = raw[0]["tools"]
        reference = mlperf_turns(raw)

        (conv,) = load_dataset(CONVERSATION)
        messages = conversation_start(conv, native=True)
        ours = []
        for row in conv.rows[1:]:
            if row.role == "assistant":  # the prompt the model gets for this turn
                ours.append(engine.prompt_tokens(list(messages), tools=conv.tools))
            messages += native_messages(row)
        assert len(ours) == len(reference) == conv.assistant_turns == 6

        for turn, (mine, msgs) in enumerate(zip(ours, reference, strict=True)):
            text = hf.apply_chat_template(msgs, tools=tools, tokenize=False,
                                          add_generation_prompt=True)
            ids = hf.apply_chat_template(msgs, tools=tools, tokenize=True,
                                         add_generation_prompt=True)
            ids = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
            assert engine.llm.detokenize(mine, special=True).decode() == text, f"turn {turn}"
            assert mine == ids, f"turn {turn}: {len(mine)} vs {len(ids)} tokens"
        # the turns grow: each is a strict extension of the one before (the recorded
        # history renders the same every time)
        for a, b in zip(ours, ours[1:], strict=False):
            assert b[: len(a)] == a
    finally:
        engine.close()
