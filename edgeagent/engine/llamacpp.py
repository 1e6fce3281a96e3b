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
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from . import llama_log
from .base import (
    ContextOverflow,
    EngineError,
    Generation,
    Grammar,
    Message,
    ToolCall,
    check_tool_choice,
    gbnf_of,
)
from .chat_template import CHATML_TEMPLATE, ChatTemplate
from .forced import ForcedTokenProbe, GrammarProbe
from .greedy import GreedyChooser, StartAllowed, TokenLog
from .llamacpp_ops import TokenText, eval_tokens, evaluate_after_prefix, truncate_head_tail
from .llamacpp_settings import (
    GGML_TYPES,
    EngineSettings,
    kv_bytes_per_token,
    read_back,
    resolve_flash_attn,
)
from .speculative import Speculator, build_speculator, decode_speculative
from .threads import apply_thread_policy
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


def _import_llama_cpp() -> Any:
    apply_thread_policy()  # libgomp reads its variables when llama_cpp loads
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelError(
            f"llama-cpp-python cannot be imported ({exc}); install it with "
            'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir llama-cpp-python'
        ) from exc
    return llama_cpp


def _load_error(model_path: Path, exc: Exception) -> ModelError:
    """What a failed load says: llama.cpp's own reason when it refused the context."""
    said = [w for w in llama_log.take_warnings() if w.strip(". ")]
    llama_log.take_info()  # this context's lines must not reach the next one
    if said and "context" in str(exc):
        # the model loaded but llama.cpp refused the context: its reason is the fix
        return ModelError(
            f"llama.cpp cannot make a context for {model_path.name} with these "
            f"settings: {said[-1]} (change the setting it names)"
        )
    return ModelError(
        f"cannot load model {model_path}: {exc} (is it a complete GGUF file? "
        "re-download it with `edgeagent models pull NAME`)"
    )


@contextlib.contextmanager
def _flash_attn_type(llama_cpp: Any, mode: str) -> Iterator[None]:
    """Flash attention `auto` for the contexts made inside: llama-cpp-python's Llama() takes
    only a bool (enabled or disabled), so its context constructor is handed llama.cpp's
    LLAMA_FLASH_ATTN_TYPE_AUTO on the way; llama.cpp then resolves it per backend and logs
    what it chose (read back in provenance)."""
    if mode != "auto":
        yield
        return
    internals = llama_cpp._internals
    make_context = internals.LlamaContext

    def auto_context(*, model: Any, params: Any, verbose: bool = True) -> Any:
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO
        return make_context(model=model, params=params, verbose=verbose)

    internals.LlamaContext = auto_context
    try:
        yield
    finally:
        internals.LlamaContext = make_context


class LlamaCppEngine:
    """One loaded model and its KV cache; generations reuse the cached prompt prefix.

    It is also the target speculative decoding drafts for (speculative.SpeculativeTarget:
    `llama_cpp`, `llm`, the context settings, `token_log` and `greedy_chooser`)."""

    def __init__(self, model_path: Path, settings: EngineSettings | None = None) -> None:
        settings = settings or EngineSettings()
        llama_cpp = _import_llama_cpp()
        self.llama_cpp = llama_cpp
        llama_log.install(llama_cpp)  # llama.cpp's warnings go to provenance, not stderr
        llama_log.take_warnings()
        # lines other loads left (a tokenizer's, vocab only) must not fill the kept ones
        llama_log.take_info()
        system_info = llama_cpp.llama_print_system_info().decode(errors="replace").strip()
        check_build_is_safe(system_info)
        self.model_path = Path(model_path)
        self.engine_settings = settings
        self._take_settings(settings)
        t0 = time.monotonic_ns()
        self.llm = self._load(settings)
        self.load_ms = (time.monotonic_ns() - t0) / 1e6
        self.load_warnings = llama_log.take_warnings()
        self.settings_read_back = read_back(llama_cpp, self.llm._ctx.ctx, self.model_path,
                                            llama_log.take_info())
        self.n_ctx = self.llm.n_ctx()
        self.system_info = system_info
        self._vocab = self.llm._model.vocab
        self._meta = self.llm.metadata
        self._read_template()
        self._grammars: dict[str, Any] = {}
        self._start_allowed: StartAllowed = {}  # what each grammar allows first
        # the forced-token probes (forced.py): the vocabulary's, built on first use, and
        # each grammar's (None: its named tokens could not be read)
        self._forced_probe: ForcedTokenProbe | None = None
        self._grammar_probes: dict[str, GrammarProbe | None] = {}
        self._n_vocab = self.llm.n_vocab()
        # candidate buffers for the fast greedy grammar path, allocated on first use
        self._candidates: Any = None
        self._candidates_view: np.ndarray | None = None
        self._one_candidate: Any = None
        self._kv_bytes_per_token = self._kv_bytes_per_token_from_metadata()
        # speculative decoding (greedy only: drafts are verified against the argmax)
        self.spec_settings = settings.spec
        self.speculator: Speculator | None = None
        if self.spec_settings.enabled and self._plain_greedy:
            self.speculator = build_speculator(self.spec_settings, self)
        self._on_token: Callable[[int], None] | None = None  # set by each generate()
        self._turn_timeout_s = settings.turn_timeout_s
        self._deadline: tuple[int, float] | None = None  # set by each generate()

    def _take_settings(self, s: EngineSettings) -> None:
        """The settings as asked, kept for loading, sampling and provenance."""
        # 0 or None: one thread per CPU; what is recorded is the number llama.cpp was given
        self.n_threads_requested = s.threads
        self.thread_policy = apply_thread_policy()
        self.n_threads = s.threads or self.thread_policy["default_threads"]
        self.n_threads_batch = s.threads_batch or self.n_threads
        self.n_gpu_layers = s.gpu_layers
        # the settings as asked; `settings_read_back` is what llama.cpp reports it used
        self.settings = {
            "threads": self.n_threads, "threads_batch": self.n_threads_batch,
            "n_batch": s.n_batch, "n_ubatch": s.physical_batch, "flash_attn": s.flash_attn,
            "type_k": s.type_k, "type_v": s.type_v, "gpu_layers": s.gpu_layers,
            "mlock": s.mlock, "mmap": s.mmap,
        }
        self.seed = s.seed
        self.temperature = s.temperature
        self.top_p = s.top_p
        self.repeat_penalty = s.repeat_penalty
        # plain greedy (no penalty): our own argmax loops; else Llama.generate's sampler chain
        self._plain_greedy = s.temperature == 0 and s.repeat_penalty == 1
        # greedy + grammar: check the argmax against the grammar first (False: the sampler
        # chain of Llama.generate filters the whole vocabulary every token; same tokens)
        self.fast_grammar = s.fast_grammar

    def _load(self, s: EngineSettings) -> Any:
        """The model and its context, as llama_cpp.Llama makes them from the settings."""
        on_gpu = s.gpu_layers != 0 and bool(self.llama_cpp.llama_supports_gpu_offload())
        flash = resolve_flash_attn(s.flash_attn, on_gpu, s.type_v)
        try:
            with _flash_attn_type(self.llama_cpp, flash):
                return self._llama(s, flash)
        except (ValueError, RuntimeError, OSError) as exc:
            raise _load_error(self.model_path, exc) from exc

    def _llama(self, s: EngineSettings, flash: str) -> Any:
        return self.llama_cpp.Llama(
            model_path=str(self.model_path),
            n_ctx=s.n_ctx,
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads_batch,
            n_gpu_layers=s.gpu_layers,
            n_batch=s.n_batch,
            n_ubatch=s.physical_batch,
            flash_attn=flash == "on",
            type_k=GGML_TYPES[s.type_k],
            type_v=GGML_TYPES[s.type_v],
            use_mlock=s.mlock,
            use_mmap=s.mmap,
            seed=s.seed,
            verbose=False,
        )

    def _read_template(self) -> None:
        """The GGUF's chat template (ChatML when it has none) and its native tool format."""
        bos = self._token_text(self.llm.token_bos())
        eos = self._token_text(self.llm.token_eos())
        template = self._meta.get("tokenizer.chat_template")
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
        lc = self.llama_cpp
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
            "thread_policy": dict(self.thread_policy),
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

    @contextlib.contextmanager
    def sampling_override(self, temperature: float | None = None, top_p: float | None = None,
                          seed: int | None = None) -> Iterator[None]:
        """A request's own sampling for the generations inside the block (`edgeagent serve`),
        the settings restored after. Speculative decoding verifies greedily: a temperature
        above 0 is refused there (ValueError)."""
        if temperature is not None and temperature > 0 and self.speculator is not None:
            raise ValueError("this server decodes speculatively (greedy only): send "
                             "temperature 0 or restart it without --spec")
        saved = (self.temperature, self.top_p, self.seed, self._plain_greedy)
        if temperature is not None:
            self.temperature = temperature
            self._plain_greedy = temperature == 0 and self.repeat_penalty == 1
        if top_p is not None:
            self.top_p = top_p
        if seed is not None and seed != self.seed:
            self.seed = seed
            self.llm.set_seed(seed)
        try:
            yield
        finally:
            self.temperature, self.top_p, restored_seed, self._plain_greedy = saved
            if restored_seed != self.seed:
                self.seed = restored_seed
                self.llm.set_seed(restored_seed)

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
            grammar = self.llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
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
        tool_choice: str | None = None,
    ) -> Generation:
        check_tool_choice(tool_choice, tools, grammar)
        if tool_choice not in (None, "auto"):
            # in process a call is forced (or ruled out) by a grammar alone: without one the
            # model is free to call or not, which is what "auto" asks
            raise ValueError(f"tool_choice {tool_choice!r}: the in-process engine takes only "
                             "'auto'; force a call with the family's grammar "
                             "(tool_format.tool_call_grammar)")
        grammar = gbnf_of(grammar)  # llama.cpp takes the GBNF; the schema is for servers
        # each call sets (or clears) the listener that both decode loops' token log calls;
        # its pieces add up to the generation's text
        stream = TokenText(self.llm, on_token) if on_token else None
        self._on_token = stream.add if stream else None
        t_start = time.monotonic_ns()
        timeout_s = self._turn_timeout_s
        self._deadline = (t_start + int(timeout_s * 1e9), timeout_s) if timeout_s else None
        prompt = self.prompt_tokens(messages, tools)
        limit = min(self.n_ctx, max_context_tokens or self.n_ctx)
        if len(prompt) + max_tokens > limit:
            raise ContextOverflow(len(prompt) + max_tokens, limit)
        reused = self._reused_prefix(prompt)
        self.llama_cpp.llama_perf_context_reset(self.llm._ctx.ctx)
        extra: dict[str, Any] = {}
        fast_grammar = bool(grammar) and self.fast_grammar and self._plain_greedy
        # before the prefill clock starts: parsing a new grammar is not prefill
        sampler_grammar = self._grammar(grammar) if grammar and not fast_grammar else None
        # the loop that uses the probes (speculative decoding does not), before the clock too
        use_probe = fast_grammar and grammar and self.speculator is None
        probe = self._grammar_probe(grammar) if use_probe else None
        t_prefill = time.monotonic_ns()
        if self.speculator is not None:
            reused, log = decode_speculative(
                self, self.speculator, prompt, reused, grammar, max_tokens, extra
            )
        elif fast_grammar:
            assert grammar is not None
            reused, log = self._decode_greedy_grammar(prompt, reused, grammar, max_tokens, extra,
                                                      probe)
        else:
            log = self._decode_with_generate(prompt, sampler_grammar, max_tokens)
        if not log.times:
            raise EngineError("llama.cpp produced no token")
        if stream is not None:
            stream.finish()
        return self._generation(prompt, reused, log, extra, tools, (t_start, t_prefill))

    def _generation(
        self,
        prompt: list[int],
        reused: int,
        log: TokenLog,
        extra: dict[str, Any],
        tools: Sequence[Mapping[str, Any]] | None,
        edges: tuple[int, int],
    ) -> Generation:
        """The Generation of a finished decode loop: its text, tool calls, clocks (`edges`:
        call entered, prefill started) and llama.cpp's counters."""
        out, times, perf_prefill = log.out, log.times, log.perf_prefill
        perf = self.llama_cpp.llama_perf_context(self.llm._ctx.ctx)
        engine_prefill_ms = perf_prefill[0] if perf_prefill else None
        engine_decode_ms = (
            perf.t_p_eval_ms + perf.t_eval_ms - perf_prefill[0] if perf_prefill else None
        )
        text = self.llm.detokenize(out).decode(errors="replace")
        spec_drafted, spec_accepted = extra.pop("_spec_counts", (None, None))
        decode_cpu_ms = (
            (time.process_time_ns() - log.cpu_first_ns) / 1e6 if log.cpu_first_ns else None
        )
        calls, call_error = self._tool_calls(out) if tools else (None, None)
        return Generation(
            text=text,
            tokens=tuple(out),
            finish_reason=log.finish,
            context_tokens=len(prompt),
            reused_tokens=reused,
            prefill_tokens=len(prompt) - reused,
            decoded_tokens=len(times),
            t_start_ns=edges[0],
            t_prefill_start_ns=edges[1],
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

    def _tool_calls(self, out: list[int]) -> tuple[tuple[ToolCall, ...], str | None]:
        """The native calls in a turn's tokens, and why none could be read (or None)."""
        # with special pieces: a family's marker may be a control token ([TOOL_CALLS])
        raw = self.llm.detokenize(out, special=True).decode(errors="replace")
        parsed = parse_tool_calls(self.tool_family, raw, self._calls_made)
        self._calls_made += len(parsed.calls)
        return parsed.calls, parsed.error

    def _perf_prefill(self) -> tuple[float, float]:
        """llama.cpp's eval time so far (prompt + single-token batches), and the latter alone."""
        perf = self.llama_cpp.llama_perf_context(self.llm._ctx.ctx)
        return (perf.t_p_eval_ms + perf.t_eval_ms, perf.t_eval_ms)

    def token_log(self, max_tokens: int) -> TokenLog:
        """A new generation's token log: this engine's clock, stop rule and listener."""
        return TokenLog(max_tokens, self._perf_prefill, self._is_eog, self._on_token,
                        self._deadline)

    def greedy_chooser(self, gbnf: str | None,
                       probe: GrammarProbe | None = None) -> GreedyChooser:
        """A new generation's greedy choice, grammar-checked when `gbnf` is given (with
        `probe`, the grammar's forced-token probes, it can also tell forced positions)."""
        buffers = self._candidate_buffers() if gbnf is not None else None
        return GreedyChooser(self.llama_cpp, self._vocab, self._n_vocab, buffers, gbnf,
                             self._start_allowed, self.n_threads, probe)

    def _grammar_probe(self, gbnf: str) -> GrammarProbe | None:
        """The forced-token probes of a grammar (the vocabulary's built on first use)."""
        if gbnf not in self._grammar_probes:
            if self._forced_probe is None:
                self._forced_probe = ForcedTokenProbe(self.llama_cpp, self._vocab,
                                                      self._n_vocab)
            self._grammar_probes[gbnf] = self._forced_probe.for_grammar(
                gbnf, lambda text: self.llm.tokenize(text.encode(), add_bos=False,
                                                     special=True))
        return self._grammar_probes[gbnf]

    def _is_eog(self, token: int) -> bool:
        return bool(self.llama_cpp.llama_vocab_is_eog(self._vocab, token))

    def _decode_with_generate(
        self, prompt: list[int], sampler_grammar: Any, max_tokens: int
    ) -> TokenLog:
        """Drive `Llama.generate()` and time around its yields (sampling, or no grammar)."""
        llm = self.llm
        log = self.token_log(max_tokens)
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
            lc = self.llama_cpp
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
        probe: GrammarProbe | None = None,
    ) -> tuple[int, TokenLog]:
        """Greedy decoding under a grammar that checks the argmax first.

        Leaves the KV cache, `llm.n_tokens` and `llm.input_ids` as `Llama.generate()` would:
        the prompt past `reused` and every returned token but the last are evaluated; the
        end-of-generation token, or the last token of a turn cut by max_tokens, is not.
        A position whose next token the grammar forces (`probe`) is evaluated without logits
        and the forced token taken as it is: the same tokens, one output layer fewer each.
        Returns (reused, the token log: tokens, times, finish reason, perf at the first one).
        """
        lc = self.llama_cpp
        llm = self.llm
        ctx = llm._ctx.ctx
        log = self.token_log(max_tokens)
        chooser = self.greedy_chooser(gbnf, probe)
        try:
            forced = chooser.forced_next()
            if reused < len(prompt):
                reused = evaluate_after_prefix(llm, prompt, reused, logits=forced is None)
            # else: the whole prompt is cached with live logits; sample from them directly
            while True:
                token = forced if forced is not None else chooser.choose(
                    lc.llama_get_logits_ith(ctx, -1), "the last position")
                if not log.add(token):
                    break
                chooser.accept(token)
                forced = chooser.forced_next()
                eval_tokens(llm, [token], logits=forced is None)
        except (RuntimeError, ValueError, OSError) as exc:
            raise EngineError(f"llama.cpp failed while generating: {exc}") from exc
        finally:
            chooser.close()
        extra.update(chooser.counters())
        return reused, log

    def close(self) -> None:
        with contextlib.suppress(Exception):
            if self.speculator is not None:
                self.speculator.close()
        with contextlib.suppress(Exception):
            self.llm.close()
