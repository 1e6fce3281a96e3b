"""In-process llama.cpp engine: our own timing around llama-cpp-python's token generator.

`Llama.generate()` is driven directly (not `create_chat_completion`) so that we take the
timestamps: its first yield comes after the prompt suffix is evaluated and the first token
sampled (TTFT); each later yield is one decode step. It keeps one sampler, and so one grammar
state, for the whole generation (see shared/docs/llama-cpp-notes.md, 1-2), and it evaluates
only the prompt past the longest common prefix with the KV cache, which we account for here
with the same rule it applies.

Greedy decoding under a grammar takes its own loop (`_decode_greedy_grammar`): the argmax of
the raw logits is checked against the grammar alone, and only when the grammar rejects it is
the grammar applied to the whole vocabulary (llama.cpp's common sampler does the same). For
greedy decoding this picks exactly the token `Llama.generate(..., grammar=...)` picks, at a
fraction of the cost: the sampler chain there filters all ~152k candidates every token
(shared/docs/llama-cpp-notes.md, 4).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..config import SpecSettings
from ..errors import ModelError
from . import llama_log
from .base import ContextOverflow, EngineError, Generation, Grammar, Message, gbnf_of
from .chat_template import CHATML_TEMPLATE, ChatTemplate
from .llamacpp_ops import evaluate_after_prefix, truncate_head_tail
from .llamacpp_settings import GGML_TYPES, kv_bytes_per_token, read_back
from .speculative import Speculator, build_speculator, decode_speculative
from .tool_format import detect_family, parse_tool_calls, single_token_markers

# GGUF general.file_type -> quantisation name (llama.cpp's llama_ftype)
_FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
    10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
    16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
}


# llama-cpp-python's defaults for the sampled chain, kept fixed (recorded with the sampler)
SAMPLER_TOP_K = 40
SAMPLER_MIN_P = 0.05


def sampling_label(sampler: dict[str, Any]) -> str:
    """One line for reports: 'greedy', or the sampled chain's settings and seed."""
    penalty = sampler.get("repeat_penalty", 1.0)
    extra = (f", repeat penalty {penalty:g} (last {sampler.get('penalty_last_n')} tokens)"
             if penalty != 1 else "")
    if sampler.get("kind") == "greedy":
        return "greedy" + extra
    return (f"temperature {sampler['temperature']:g}, top-p {sampler['top_p']:g}, top-k "
            f"{sampler['top_k']}, min-p {sampler['min_p']:g}{extra}, seed {sampler['seed']}")


def _cpu_has_amx() -> bool:
    try:
        return " amx" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


def check_build_is_safe(system_info: str) -> None:
    """A native llama.cpp build crashes on AMX CPUs at the first quantised decode."""
    if _cpu_has_amx() and "AMX_INT8 = 1" in system_info:
        raise ModelError(
            "llama-cpp-python was built with AMX kernels, which crash on this CPU: reinstall it "
            'with CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall '
            "llama-cpp-python"
        )


class _TokenLog:
    """Per-token bookkeeping shared by both decode loops: when each token was sampled,
    llama.cpp's counters at the first one, and the stop rule (end of generation, or
    max_tokens). The end-of-generation token is timed and counted but not kept."""

    def __init__(
        self,
        max_tokens: int,
        perf_now: Callable[[], tuple[float, float]],
        is_eog: Callable[[int], bool],
        on_token: Callable[[int], None] | None = None,
    ) -> None:
        self.max_tokens = max_tokens
        self._on_token = on_token
        self._perf_now = perf_now
        self._is_eog = is_eog
        self.out: list[int] = []
        self.times: list[int] = []
        self.finish = "length"
        self.perf_prefill: tuple[float, float] | None = None
        self.cpu_first_ns: int | None = None  # process CPU time at the first token

    def add(self, token: int) -> bool:
        """Record one sampled token; False when decoding must stop."""
        self.times.append(time.monotonic_ns())
        if self.perf_prefill is None:
            self.perf_prefill = self._perf_now()
            self.cpu_first_ns = time.process_time_ns()
        if self._is_eog(token):
            self.finish = "stop"
            return False
        self.out.append(token)
        if self._on_token is not None:  # after the timestamp: a display never shifts it
            self._on_token(token)
        return len(self.out) < self.max_tokens


class LlamaCppEngine:
    """One loaded model and its KV cache; generations reuse the cached prompt prefix."""

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        seed: int = 0,
        temperature: float = 0.0,
        top_p: float = 0.95,
        repeat_penalty: float = 1.0,
        n_batch: int = 512,
        fast_grammar: bool = True,
        spec: SpecSettings | None = None,
        n_threads_batch: int | None = None,
        n_ubatch: int = 512,
        flash_attn: bool = False,
        type_k: str = "f16",
        type_v: str = "f16",
        use_mlock: bool = False,
        use_mmap: bool = True,
    ) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError(
                f"llama-cpp-python cannot be imported ({exc}); install it with "
                'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir llama-cpp-python'
            ) from exc
        self._llama_cpp = llama_cpp
        llama_log.install(llama_cpp)  # llama.cpp's warnings go to provenance, not stderr
        llama_log.take_warnings()
        system_info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
        check_build_is_safe(system_info)
        self.model_path = Path(model_path)
        # 0 or None: one thread per CPU; what is recorded is the number llama.cpp was given
        self.n_threads_requested = n_threads
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self.n_threads_batch = n_threads_batch or self.n_threads
        self.n_gpu_layers = n_gpu_layers
        # the settings as asked; `settings_read_back` is what llama.cpp reports it used
        self.settings = {
            "threads": self.n_threads, "threads_batch": self.n_threads_batch,
            "n_batch": n_batch, "n_ubatch": n_ubatch, "flash_attn": flash_attn,
            "type_k": type_k, "type_v": type_v, "gpu_layers": n_gpu_layers,
            "mlock": use_mlock, "mmap": use_mmap,
        }
        self.seed = seed
        self.temperature = temperature
        self.top_p = top_p
        self.repeat_penalty = repeat_penalty
        # plain greedy (no penalty): our own argmax loops; else Llama.generate's sampler chain
        self._plain_greedy = temperature == 0 and repeat_penalty == 1
        # greedy + grammar: check the argmax against the grammar first (False: the sampler
        # chain of Llama.generate filters the whole vocabulary every token; same tokens)
        self.fast_grammar = fast_grammar
        t0 = time.monotonic_ns()
        try:
            self.llm = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads_batch,
                n_gpu_layers=n_gpu_layers,
                n_batch=n_batch,
                n_ubatch=n_ubatch,
                flash_attn=flash_attn,
                type_k=GGML_TYPES[type_k],
                type_v=GGML_TYPES[type_v],
                use_mlock=use_mlock,
                use_mmap=use_mmap,
                seed=seed,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            said = [w for w in llama_log.take_warnings() if w.strip(". ")]
            llama_log.take_info()  # this context's lines must not reach the next one
            if said and "context" in str(exc):
                # the model loaded but llama.cpp refused the context: its reason is the fix
                raise ModelError(
                    f"llama.cpp cannot make a context for {self.model_path.name} with these "
                    f"settings: {said[-1]} (change the setting it names)"
                ) from exc
            raise ModelError(
                f"cannot load model {self.model_path}: {exc} (is it a complete GGUF file? "
                "re-download it with `edgeagent models pull NAME`)"
            ) from exc
        self.load_ms = (time.monotonic_ns() - t0) / 1e6
        self.load_warnings = llama_log.take_warnings()
        self.settings_read_back = read_back(llama_cpp, self.llm._ctx.ctx, self.model_path,
                                            llama_log.take_info())
        self.n_ctx = self.llm.n_ctx()
        self.system_info = system_info
        self._vocab = self.llm._model.vocab
        meta = self.llm.metadata
        self._meta = meta
        bos = self._token_text(self.llm.token_bos())
        eos = self._token_text(self.llm.token_eos())
        template = meta.get("tokenizer.chat_template")
        self.template_source = "gguf" if template else "chatml-fallback"
        self.template = ChatTemplate(template or CHATML_TEMPLATE, bos_token=bos, eos_token=eos)
        # native tool calls: the family the GGUF's template speaks (None: no native tools)
        self.tool_family = detect_family(template)
        self._calls_made = 0  # ids of native calls count across the run
        self.tool_markers = single_token_markers(
            self.tool_family,
            lambda t: self.llm.tokenize(t.encode(), add_bos=False, special=True),
            self._token_text,
        )
        self._bos_text = bos
        self._add_bos = self.llm._model.add_bos_token()
        self._grammars: dict[str, Any] = {}
        self._n_vocab = self.llm.n_vocab()
        # candidate buffers for the fast greedy grammar path, allocated on first use
        self._candidates: Any = None
        self._candidates_view: np.ndarray | None = None
        self._one_candidate: Any = None
        self._kv_bytes_per_token = self._kv_bytes_per_token_from_metadata()
        # speculative decoding (greedy only: drafts are verified against the argmax)
        self.spec_settings = spec or SpecSettings()
        self.speculator: Speculator | None = None
        if self.spec_settings.enabled and self._plain_greedy:
            self.speculator = build_speculator(self.spec_settings, self)
        self._on_token: Callable[[int], None] | None = None  # set by each generate()

    # -- provenance ---------------------------------------------------------------------
    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self.llm.detokenize([token], special=True).decode(errors="replace")

    def _meta_int(self, key: str, default: int | None = None) -> int | None:
        value = self._meta.get(key)
        try:
            return int(value) if value is not None else default
        except ValueError:
            return default

    def _kv_bytes_per_token_from_metadata(self) -> int:
        """K and V per token: layers x kv heads x (key row + value row), each row in its
        cache type's bytes (f16: 2 a value; q8_0 and q4_0 in blocks of 32)."""
        arch = self._meta.get("general.architecture", "")
        n_layer = self._meta_int(f"{arch}.block_count", 0) or 0
        n_head = self._meta_int(f"{arch}.attention.head_count", 1) or 1
        n_head_kv = self._meta_int(f"{arch}.attention.head_count_kv", n_head) or n_head
        n_embd = self._meta_int(f"{arch}.embedding_length", 0) or 0
        k_dim = self._meta_int(f"{arch}.attention.key_length", n_embd // n_head) or 0
        v_dim = self._meta_int(f"{arch}.attention.value_length", n_embd // n_head) or 0
        return kv_bytes_per_token(n_layer, n_head_kv, k_dim, v_dim,
                                  self.settings["type_k"], self.settings["type_v"])

    def provenance(self) -> dict[str, Any]:
        lc = self._llama_cpp
        model = self.llm._model.model
        file_type = self._meta_int("general.file_type")
        arch = self._meta.get("general.architecture")
        return {
            "backend": "llama.cpp (llama-cpp-python, in process)",
            "llama_cpp_python": getattr(lc, "__version__", None),
            "model_path": str(self.model_path),
            "model_name": self._meta.get("general.name"),
            "architecture": arch,
            "parameters": int(lc.llama_model_n_params(model)),
            "model_size_bytes": int(lc.llama_model_size(model)),
            "quantization": _FILE_TYPES.get(file_type, f"file_type {file_type}")
            if file_type is not None
            else None,
            "n_ctx": self.n_ctx,
            "n_ctx_train": self._meta_int(f"{arch}.context_length"),
            "n_threads": self.n_threads,
            "n_threads_requested": self.n_threads_requested,
            "llama_cpp_load_warnings": self.load_warnings,
            "n_threads_auto": not self.n_threads_requested,
            "n_gpu_layers": self.n_gpu_layers,
            "settings": dict(self.settings),
            "settings_read_back": self.settings_read_back,
            "seed": self.seed,
            "temperature": self.temperature,
            "sampling": sampling_label(self.sampler()),
            "sampler": self.sampler(),
            "grammar_sampling": "argmax checked first"
            if self.fast_grammar and self._plain_greedy
            else "full vocabulary",
            "kv_bytes_per_token": self._kv_bytes_per_token,
            "speculative": self.speculator.provenance() if self.speculator else None,
            "chat_template": self.template_source,
            "tool_family": self.tool_family,
            "load_ms": self.load_ms,
            "system_info": self.system_info,
        }

    def sampler(self) -> dict[str, Any]:
        """The sampler chain as llama.cpp runs it (Llama.generate's order: penalties over the
        last `penalty_last_n` tokens, grammar, then greedy or top-k, top-p, min-p,
        temperature and a seeded draw)."""
        chain: dict[str, Any] = {
            "kind": "greedy" if self.temperature == 0 else "sampled",
            "temperature": self.temperature,
            "repeat_penalty": self.repeat_penalty,
            "penalty_last_n": self.llm.last_n_tokens_size,
            "seed": self.seed,
        }
        if self.temperature > 0:
            chain.update(top_k=SAMPLER_TOP_K, top_p=self.top_p, min_p=SAMPLER_MIN_P)
        return chain

    # -- tokens -------------------------------------------------------------------------
    def _tokenize(self, text: str, first: bool) -> list[int]:
        # a template that writes the BOS text itself must not get a second one
        has_bos = bool(self._bos_text) and text.startswith(self._bos_text)
        add_bos = first and self._add_bos and not has_bos
        return self.llm.tokenize(text.encode(), add_bos=add_bos, special=True)

    def count_tokens(self, text: str) -> int:
        return len(self.llm.tokenize(text.encode(), add_bos=False, special=False))

    def truncate_to_tokens(self, text: str, max_tokens: int) -> str:
        """Keep the head and the tail of `text` within `max_tokens`, with a marker between."""
        return truncate_head_tail(self.llm, text, max_tokens)

    def prompt_tokens(
        self, messages: list[Message], tools: Sequence[Mapping[str, Any]] | None = None
    ) -> list[int]:
        return self.template.render_tokens(messages, self._tokenize, tools)

    def _grammar(self, gbnf: str) -> Any:
        grammar = self._grammars.get(gbnf)
        if grammar is None:
            grammar = self._llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
            self._grammars[gbnf] = grammar
        return grammar

    def _reused_prefix(self, prompt: list[int]) -> int:
        """The number of prompt tokens Llama.generate will keep in the KV cache (its own rule)."""
        llm = self.llm
        if llm.n_tokens == 0:
            return 0
        common = 0
        for a, b in zip(llm._input_ids, prompt, strict=False):
            if a != b:
                break
            common += 1
        if common == len(prompt):
            if llm.n_tokens == len(prompt) and not llm._requires_eval:
                return common  # generate() samples from the live logits, evaluating nothing
            # otherwise generate() replays the last prompt token to refresh the logits
            return common - 1
        return common

    # -- generation ---------------------------------------------------------------------
    def generate(
        self,
        messages: list[Message],
        *,
        max_tokens: int,
        grammar: Grammar | str | None = None,
        max_context_tokens: int | None = None,
        on_token: Callable[[str], None] | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> Generation:
        grammar = gbnf_of(grammar)  # llama.cpp takes the GBNF; the schema is for servers
        # each call sets (or clears) the listener that both decode loops' token log calls
        self._on_token = (lambda t: on_token(self._token_text(t))) if on_token else None
        lc = self._llama_cpp
        llm = self.llm
        t_start = time.monotonic_ns()
        prompt = self.prompt_tokens(messages, tools)
        limit = min(self.n_ctx, max_context_tokens or self.n_ctx)
        if len(prompt) + max_tokens > limit:
            raise ContextOverflow(len(prompt) + max_tokens, limit)
        reused = self._reused_prefix(prompt)
        ctx = llm._ctx.ctx
        lc.llama_perf_context_reset(ctx)
        extra: dict[str, Any] = {}
        fast_grammar = bool(grammar) and self.fast_grammar and self._plain_greedy
        sampler_grammar = self._grammar(grammar) if grammar and not fast_grammar else None
        t_prefill = time.monotonic_ns()
        if self.speculator is not None:
            reused, log = decode_speculative(
                self, self.speculator, prompt, reused, grammar, max_tokens, extra
            )
        elif fast_grammar:
            assert grammar is not None
            reused, log = self._decode_greedy_grammar(prompt, reused, grammar, max_tokens, extra)
        else:
            log = self._decode_with_generate(prompt, sampler_grammar, max_tokens)
        out, times, perf_prefill = log.out, log.times, log.perf_prefill
        if not times:
            raise EngineError("llama.cpp produced no token")
        perf = lc.llama_perf_context(ctx)
        engine_prefill_ms = perf_prefill[0] if perf_prefill else None
        engine_decode_ms = (
            perf.t_p_eval_ms + perf.t_eval_ms - perf_prefill[0] if perf_prefill else None
        )
        text = llm.detokenize(out).decode(errors="replace")
        spec_drafted, spec_accepted = extra.pop("_spec_counts", (None, None))
        decode_cpu_ms = (
            (time.process_time_ns() - log.cpu_first_ns) / 1e6 if log.cpu_first_ns else None
        )
        calls = None
        call_error = None
        if tools:
            # with special pieces: a family's marker may be a control token ([TOOL_CALLS])
            raw = llm.detokenize(out, special=True).decode(errors="replace")
            parsed = parse_tool_calls(self.tool_family, raw, self._calls_made)
            calls, call_error = parsed.calls, parsed.error
            self._calls_made += len(calls)
        return Generation(
            text=text,
            tokens=tuple(out),
            finish_reason=log.finish,
            context_tokens=len(prompt),
            reused_tokens=reused,
            prefill_tokens=len(prompt) - reused,
            decoded_tokens=len(times),
            t_start_ns=t_start,
            t_prefill_start_ns=t_prefill,
            t_first_token_ns=times[0],
            t_end_ns=times[-1],
            token_times_ns=tuple(times),
            engine_prefill_ms=engine_prefill_ms,
            engine_decode_ms=engine_decode_ms,
            kv_cache_bytes=(len(prompt) + len(out)) * self._kv_bytes_per_token,
            spec_drafted=spec_drafted,
            spec_accepted=spec_accepted,
            extra=extra,
            decode_cpu_ms=decode_cpu_ms,
            tool_calls=calls,
            tool_call_error=call_error,
        )

    def _perf_prefill(self) -> tuple[float, float]:
        """llama.cpp's eval time so far (prompt + single-token batches), and the latter alone."""
        perf = self._llama_cpp.llama_perf_context(self.llm._ctx.ctx)
        return (perf.t_p_eval_ms + perf.t_eval_ms, perf.t_eval_ms)

    def _token_log(self, max_tokens: int) -> _TokenLog:
        return _TokenLog(max_tokens, self._perf_prefill, self._is_eog, self._on_token)

    def _is_eog(self, token: int) -> bool:
        return bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def _decode_with_generate(
        self, prompt: list[int], sampler_grammar: Any, max_tokens: int
    ) -> _TokenLog:
        """Drive `Llama.generate()` and time around its yields (sampling, or no grammar)."""
        llm = self.llm
        log = self._token_log(max_tokens)
        stream = llm.generate(
            prompt,
            temp=self.temperature,
            top_k=SAMPLER_TOP_K,
            top_p=self.top_p,
            min_p=SAMPLER_MIN_P,
            repeat_penalty=self.repeat_penalty,
            reset=True,
            grammar=sampler_grammar,
        )
        try:
            for token in stream:
                if not log.add(token):
                    break
        except (RuntimeError, ValueError, OSError) as exc:
            raise EngineError(f"llama.cpp failed while generating: {exc}") from exc
        finally:
            stream.close()
        return log

    def _candidate_buffers(self) -> tuple[Any, np.ndarray, Any]:
        """The full-vocabulary candidate array (and a numpy view of it) and a 1-element one."""
        if self._candidates is None:
            lc = self._llama_cpp
            data = (lc.llama_token_data * self._n_vocab)()
            view = np.ctypeslib.as_array(data)
            view["id"] = np.arange(self._n_vocab, dtype=view.dtype["id"])
            view["p"] = 0.0
            self._candidates = data
            self._candidates_view = view
            self._one_candidate = (lc.llama_token_data * 1)()
        assert self._candidates_view is not None
        return self._candidates, self._candidates_view, self._one_candidate

    def _decode_greedy_grammar(
        self,
        prompt: list[int],
        reused: int,
        gbnf: str,
        max_tokens: int,
        extra: dict[str, Any],
    ) -> tuple[int, _TokenLog]:
        """Greedy decoding under a grammar that checks the argmax first.

        Leaves the KV cache, `llm.n_tokens` and `llm.input_ids` as `Llama.generate()` would:
        the prompt past `reused` and every returned token but the last are evaluated; the
        end-of-generation token, or the last token of a turn cut by max_tokens, is not.
        Returns (reused, tokens, token times, finish reason, perf at the first token).
        """
        lc = self._llama_cpp
        llm = self.llm
        ctx = llm._ctx.ctx
        n_vocab = self._n_vocab
        data, view, one = self._candidate_buffers()
        full = lc.llama_token_data_array(
            data=ctypes.cast(data, lc.llama_token_data_p), size=n_vocab, selected=-1, sorted=False
        )
        single = lc.llama_token_data_array(
            data=ctypes.cast(one, lc.llama_token_data_p), size=1, selected=-1, sorted=False
        )
        full_ref, single_ref = ctypes.byref(full), ctypes.byref(single)
        logits_view = view["logit"]
        log = self._token_log(max_tokens)
        checks = rejections = 0
        grammar_ns = 0
        # one grammar sampler per generation: its state advances with every accepted token
        smpl = lc.llama_sampler_init_grammar(self._vocab, gbnf.encode(), b"root")
        if not smpl:
            raise EngineError("llama.cpp could not parse the grammar")
        try:
            if reused < len(prompt):
                reused = evaluate_after_prefix(llm, prompt, reused)
            # else: the whole prompt is cached with live logits; sample from them directly
            while True:
                ptr = lc.llama_get_logits_ith(ctx, -1)
                if not ptr:
                    raise EngineError("llama.cpp returned no logits for the last position")
                logits = np.ctypeslib.as_array(ptr, shape=(n_vocab,))
                token = int(np.argmax(logits))  # the first maximum, as llama.cpp's greedy
                t0 = time.monotonic_ns()
                checks += 1
                one[0].id = token
                one[0].logit = float(logits[token])
                one[0].p = 0.0
                single.selected = -1
                lc.llama_sampler_apply(smpl, single_ref)
                if one[0].logit == -np.inf:
                    # rejected: the grammar filters the whole vocabulary, then the argmax
                    rejections += 1
                    logits_view[:] = logits
                    full.data = ctypes.cast(data, lc.llama_token_data_p)
                    full.size = n_vocab
                    full.selected = -1
                    full.sorted = False
                    lc.llama_sampler_apply(smpl, full_ref)
                    token = int(np.argmax(logits_view))
                    if logits_view[token] == -np.inf:
                        raise EngineError("the grammar allows no token at this point")
                grammar_ns += time.monotonic_ns() - t0
                if not log.add(token):
                    break
                t0 = time.monotonic_ns()
                lc.llama_sampler_accept(smpl, token)
                grammar_ns += time.monotonic_ns() - t0
                llm.eval([token])
        except (RuntimeError, ValueError, OSError) as exc:
            raise EngineError(f"llama.cpp failed while generating: {exc}") from exc
        finally:
            lc.llama_sampler_free(smpl)
        extra.update(
            grammar_checks=checks, grammar_rejections=rejections, grammar_ms=grammar_ns / 1e6
        )
        return reused, log

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.speculator is not None:
                self.speculator.close()
        with contextlib.suppress(Exception):
            self.llm.close()

