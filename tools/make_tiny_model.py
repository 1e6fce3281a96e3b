"""Write a tiny random-weight llama GGUF (~0.5 MB) so engine tests run in seconds.

Its output is noise, but it exercises everything the engine does with a real model: loading,
a ChatML template with control tokens, tokenizing tool-call JSON, prefill, decode and KV
reuse. Usage: python tools/make_tiny_model.py OUT.gguf [--seed N]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

N_CTX = 2048
N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2  # fewer kv heads than q heads, so the grouped-query path is exercised too
N_FF = 128
N_LAYER = 2

# Whole-word pieces so tool-call JSON tokenizes into a few tokens instead of only chars.
_WORDS = (
    "name", "arguments", "path", "read_file", "write_file", "list_dir", "grep", "edit",
    "run", "test", "submit", "content", "pattern", "command", "def", "return", "import",
    "self", "the", "a", "py", "system", "user", "assistant", "true", "false", "null",
)  # fmt: skip

_JSON_PIECES = ('{"', '":', '",', '"}', "}}", "\u2581{", '\u2581"', ".py")

# Qwen2.5's native tool-call markers: single user-defined tokens there, and here with
# --tools, so the native tool-call grammar is exercised on a token whose piece is a marker.
TOOL_TOKENS = ("<tool_call>", "</tool_call>")

# llama.cpp token types (gguf.TokenType): these values are part of the file format.
_NORMAL, _UNKNOWN, _CONTROL, _USER_DEFINED, _BYTE = 1, 2, 3, 4, 6


def _vocab(user_tokens: tuple[str, ...] = ()) -> tuple[list[str], list[float], list[int]]:
    """(tokens, scores, types): specials, user-defined tokens, 256 byte tokens, ASCII chars,
    word pieces."""
    tokens = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>", *user_tokens]
    types = [_UNKNOWN, _CONTROL, _CONTROL, _CONTROL, _CONTROL] + [_USER_DEFINED] * len(
        user_tokens)
    # An SPM vocab without the 256 byte-fallback tokens makes llama.cpp abort on load.
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [_BYTE] * 256
    seen = set(tokens)
    pieces = ["\u2581"] + [chr(c) for c in range(0x21, 0x7F)]
    # SPM merges adjacent pairs only into pieces that exist, so every prefix of a word must
    # be in the vocab for the whole word to be reachable.
    for word in _WORDS:
        for form in (word, "\u2581" + word):
            pieces += [form[:i] for i in range(2, len(form) + 1)]
    pieces += _JSON_PIECES
    for piece in pieces:
        if piece and piece not in seen:
            seen.add(piece)
            tokens.append(piece)
            types.append(_NORMAL)
    # Longer pieces score higher, so the tokenizer prefers whole words over chars.
    scores = [float(len(t)) if ty == _NORMAL else 0.0 for t, ty in zip(tokens, types, strict=True)]
    return tokens, scores, types


def write_tiny_model(
    path: Path, *, seed: int = 0, n_head: int = N_HEAD, chat_template: str | None = None,
    tools: bool = False, n_ctx_train: int = N_CTX,
) -> Path:
    """Write the tiny model to path (parents created) and return path.

    `n_head=2` gives heads of 32 values, which quantized KV caches (q8_0, q4_0: blocks of 32)
    need; `chat_template`: another template than ChatML (e.g. Qwen2.5's, with native tools);
    `tools`: add Qwen's `<tool_call>` markers as user-defined tokens (other weights then);
    `n_ctx_train`: the training context it declares (a long replay's `--n-ctx auto` is capped
    by it)."""
    import gguf

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tokens, scores, types = _vocab(TOOL_TOKENS if tools else ())
    n_vocab = len(tokens)
    head_dim = N_EMBD // n_head
    n_head_kv = min(N_HEAD_KV, n_head)

    writer = gguf.GGUFWriter(str(path), "llama")  # also writes general.architecture
    writer.add_name("tiny-random-llama")
    writer.add_file_type(0)  # all f32
    writer.add_context_length(n_ctx_train)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head_kv)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(10000.0)
    writer.add_vocab_size(n_vocab)

    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(tokens.index("<s>"))
    writer.add_eos_token_id(tokens.index("<|im_end|>"))
    writer.add_unk_token_id(tokens.index("<unk>"))
    writer.add_add_bos_token(False)  # like Qwen: ChatML prompts carry no BOS
    writer.add_add_eos_token(False)
    # SPM would put a space before every text run after a control token (" user"),
    # so ChatML would not survive a tokenize/detokenize round trip.
    writer.add_add_space_prefix(False)
    writer.add_chat_template(chat_template or CHAT_TEMPLATE)

    def weight(*shape: int) -> np.ndarray:
        # gguf-py takes row-major (out, in) arrays and reverses the dims into GGUF order.
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones(n, dtype=np.float32)

    writer.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD))
    writer.add_tensor("output_norm.weight", ones(N_EMBD))
    writer.add_tensor("output.weight", weight(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        blk = f"blk.{i}"
        writer.add_tensor(f"{blk}.attn_norm.weight", ones(N_EMBD))
        writer.add_tensor(f"{blk}.attn_q.weight", weight(n_head * head_dim, N_EMBD))
        writer.add_tensor(f"{blk}.attn_k.weight", weight(n_head_kv * head_dim, N_EMBD))
        writer.add_tensor(f"{blk}.attn_v.weight", weight(n_head_kv * head_dim, N_EMBD))
        writer.add_tensor(f"{blk}.attn_output.weight", weight(N_EMBD, n_head * head_dim))
        writer.add_tensor(f"{blk}.ffn_norm.weight", ones(N_EMBD))
        writer.add_tensor(f"{blk}.ffn_gate.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"{blk}.ffn_up.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"{blk}.ffn_down.weight", weight(N_EMBD, N_FF))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="where to write the .gguf file")
    parser.add_argument("--seed", type=int, default=0, help="weights seed (default 0)")
    parser.add_argument("--chat-template", type=Path, metavar="JINJA",
                        help="write this chat template instead of ChatML")
    parser.add_argument("--tools", action="store_true",
                        help="add <tool_call> and </tool_call> as user-defined tokens")
    args = parser.parse_args(argv)
    template = args.chat_template.read_text() if args.chat_template else None
    path = write_tiny_model(args.out, seed=args.seed, chat_template=template, tools=args.tools)
    print(f"{path} ({path.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
