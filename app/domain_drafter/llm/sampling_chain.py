"""The sampling chain both backends draw with: the grammar first, then greedy, or top-k, temperature, top-p and
a seeded draw (llm/backend.py's TOP_K, TOP_P and SAMPLER_ORDER).

In process it is a llama.cpp sampler chain (`sampler_chain`, with the grammar's sampler from `grammar_sampler`);
a server is asked for the same chain in its request (`server_sampling`), so a sampled answer is drawn alike.
"""

from __future__ import annotations

from typing import Any

from domain_drafter.core.errors import ModelError
from domain_drafter.llm.backend import SAMPLER_ORDER, TOP_K, TOP_P, DecodingOptions
from domain_drafter.llm.llama_log import CaptureLog, CaptureStderr, load_lock


def grammar_sampler(lc: Any, vocab: Any, grammar: str, verbose: bool = False) -> Any:
    """llama.cpp's grammar sampler for GBNF `grammar`; ModelError if the text does not parse."""
    # LlamaGrammar is llama-cpp-python's holder of GBNF text (it parses nothing itself);
    # llama.cpp parses it here and returns NULL when the text is not valid GBNF.
    g = lc.LlamaGrammar.from_string(grammar, verbose=False)
    with load_lock, CaptureLog(lc, verbose) as log, CaptureStderr() as err:
        sampler = lc.llama_sampler_init_grammar(vocab, g._grammar.encode("utf-8"), g._root.encode("utf-8"))
    if not sampler:
        why = "\n".join(t for t in (err.text, log.problems()) if t) or "llama.cpp rejected it"
        raise ModelError(
            f"the grammar does not parse: {why}",
            where="grammar",
            hint="fix the GBNF text (it needs a `root ::= ...` rule)",
        )
    return sampler


def sampler_chain(lc: Any, vocab: Any, options: DecodingOptions, verbose: bool = False, draw: bool = True) -> Any:
    """A llama.cpp sampler chain: optional grammar, then greedy or top-k, temperature, top-p, and (`draw`) the
    seeded draw; without it the chain leaves the kept candidates for the caller to draw from."""
    chain = lc.llama_sampler_chain_init(lc.llama_sampler_chain_default_params())
    try:
        if options.grammar is not None:
            lc.llama_sampler_chain_add(chain, grammar_sampler(lc, vocab, options.grammar, verbose))
        if options.temperature == 0.0:
            lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_greedy())
        else:
            # the temperature before top-p: top-p then keeps the nucleus of the heated distribution, so a
            # hotter decoding draws from more tokens. After it (llama.cpp's default order) a token the model
            # is sure of (p > 0.95, as when it copies its earlier answer) stays the only one at any temperature.
            lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_top_k(TOP_K))
            lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_temp(options.temperature))
            lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_top_p(TOP_P, 1))
            if draw:
                lc.llama_sampler_chain_add(chain, lc.llama_sampler_init_dist(options.seed & 0xFFFFFFFF))
    except BaseException:
        lc.llama_sampler_free(chain)
        raise
    return chain


def server_sampling(options: DecodingOptions) -> dict[str, Any]:
    """The request fields that ask an OpenAI-compatible server for this chain (none when greedy).

    llama-server follows `samplers`; other servers take what they know of the rest (no min-p). A server cannot
    refuse judged answers or forbidden literals (those act on the logits in process), so a guided search refuses
    to start on a served model (steers_tokens) rather than quietly be the plain one."""
    if options.temperature <= 0:
        return {}
    return {"top_k": TOP_K, "top_p": TOP_P, "min_p": 0.0, "samplers": list(SAMPLER_ORDER)}
