"""Write a tiny, random-weight LLaMA-architecture GGUF that real llama.cpp can load and run.

The model is useless as a language model (its weights are random) but it exercises the whole
llama.cpp path: GGUF parsing, a byte-level BPE tokenizer, prompt evaluation, sampling, grammars,
stop sequences and streaming. It is ~600 KB and is written in a few tens of milliseconds.

Vocabulary: the 256 byte tokens in GPT-2's byte-to-unicode spelling, a few hundred merges learned
from a small built-in corpus, then BOS/EOS control tokens. Every token string is unique: llama.cpp
aborts the whole process (not just the load) when a GGUF's vocabulary holds a duplicate string.

The BOS and EOS rows of the output matrix are zero, so greedy decoding never picks them on its own
(random logits of the other tokens are far above 0); a grammar that has been completed still forces
EOS, which is how tests reach stop_reason "eos".
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import numpy as np

N_EMBD = 64
N_FF = 128
N_LAYER = 2
N_HEAD = 4
N_HEAD_KV = 2
N_MERGES = 240
CONTEXT_LENGTH = 2048

BOS_TEXT = "<|bos|>"
EOS_TEXT = "<|eos|>"

# The ChatML template (Jinja) as chat models ship it; llama.cpp recognises it by its <|im_start|> marker.
# A model written with a chat template also gets ChatML's turn markers as control tokens, as real
# ChatML models have them (so a server tokenizing the whole rendered prompt and our backend, which
# tokenizes the user's text apart, agree token for token).
CHATML_TOKENS = ("<|im_start|>", "<|im_end|>")
CHATML_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
    "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

_CORPUS = """
(define (domain blocksworld)
  (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block)
               (handempty) (holding ?x - block))
  (:action pick-up
    :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down
    :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x))))
Input: The robot picks up a block from the table when the block is clear and the hand is empty.
Allowed Predicates: (on ?x ?y) (clear ?x) (holding ?x) (handempty) (ontable ?x)
Input: The robot puts the block it is holding down on the table.
The quick brown fox jumps over the lazy dog. A planner searches for a plan that reaches the goal
from the initial state, using the actions of the domain and the objects of the problem.
"""


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte -> printable character map used by byte-level BPE vocabularies."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("\u00a1"), ord("\u00ac") + 1))
        + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    )
    mapping: dict[int, str] = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapping:
            mapping[b] = chr(256 + extra)
            extra += 1
    return mapping


def _learn_merges(corpus: str, n_merges: int, byte_map: dict[int, str]) -> list[tuple[str, str]]:
    """Plain BPE training over space-prefixed words (the GPT-2 pre-tokenizer's shape)."""
    words = Counter(re.findall(r" ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+", corpus))
    seqs = {w: [byte_map[b] for b in w.encode("utf-8")] for w in words}
    merges: list[tuple[str, str]] = []
    for _ in range(n_merges):
        pairs: Counter[tuple[str, str]] = Counter()
        for w, count in words.items():
            s = seqs[w]
            for a, b in itertools.pairwise(s):
                pairs[(a, b)] += count
        if not pairs:
            break
        # Most frequent pair; ties broken by the pair itself so the result is deterministic.
        best = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        merges.append(best)
        joined = best[0] + best[1]
        for w in words:
            s = seqs[w]
            out: list[str] = []
            i = 0
            while i < len(s):
                if i + 1 < len(s) and s[i] == best[0] and s[i + 1] == best[1]:
                    out.append(joined)
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            seqs[w] = out
    return merges


def build_vocab(control: tuple[str, ...] = ()) -> tuple[list[str], list[int], list[str], int, int]:
    """Return (tokens, token_types, merges, bos_id, eos_id) with every token string unique;
    `control` adds more control tokens after EOS."""
    byte_map = bytes_to_unicode()
    tokens: list[str] = [byte_map[b] for b in range(256)]
    seen = set(tokens)
    merges_out: list[str] = []
    for a, b in _learn_merges(_CORPUS, N_MERGES, byte_map):
        merges_out.append(f"{a} {b}")
        if a + b not in seen:  # two merge paths can spell the same string: keep one token
            seen.add(a + b)
            tokens.append(a + b)
    types = [1] * len(tokens)  # NORMAL
    bos_id = len(tokens)
    tokens.append(BOS_TEXT)
    types.append(3)  # CONTROL
    eos_id = len(tokens)
    tokens.append(EOS_TEXT)
    types.append(3)
    for text in control:
        tokens.append(text)
        types.append(3)
    assert len(set(tokens)) == len(tokens), "duplicate token strings would abort llama.cpp"
    return tokens, types, merges_out, bos_id, eos_id


def write_tiny_llama(
    path: str | Path,
    seed: int = 0,
    *,
    architecture: str = "llama",
    duplicate_token: bool = False,
    chat_template: str | None = None,
    n_embd: int = N_EMBD,
    n_ff: int = N_FF,
    n_layer: int = N_LAYER,
) -> Path:
    """Write the tiny model to `path` (random weights from numpy seed `seed`) and return the path.

    For error tests: `architecture` other than "llama" makes a file llama.cpp refuses to load;
    `duplicate_token=True` spells token 300 like token 299, which makes llama.cpp abort.
    `chat_template`: stored as tokenizer.chat_template (e.g. CHATML_TEMPLATE), for the chat prompt format;
    the vocabulary then also holds CHATML_TOKENS as control tokens.
    `n_embd`, `n_ff`, `n_layer`: larger ones make a model whose prompt takes a measurable time to read.
    """
    import gguf  # test-only dependency: `pip install gguf`

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tokens, types, merges, bos_id, eos_id = build_vocab(CHATML_TOKENS if chat_template is not None else ())
    n_vocab = len(tokens)

    if duplicate_token:
        tokens = list(tokens)
        tokens[300] = tokens[299]
    w = gguf.GGUFWriter(str(path), architecture)
    w.add_name("tiny-random-llama")
    w.add_context_length(CONTEXT_LENGTH)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(N_HEAD)
    w.add_head_count_kv(N_HEAD_KV)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(n_embd // N_HEAD)
    w.add_vocab_size(n_vocab)
    w.add_file_type(0)  # all F32
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("gpt-2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(bos_id)
    w.add_eos_token_id(eos_id)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    if chat_template is not None:
        w.add_chat_template(chat_template)

    def mat(rows: int, cols: int, std: float) -> np.ndarray:
        return (rng.standard_normal((rows, cols)) * std).astype(np.float32)

    head_dim = n_embd // N_HEAD
    w.add_tensor("token_embd.weight", mat(n_vocab, n_embd, 1.0))
    for i in range(n_layer):
        w.add_tensor(f"blk.{i}.attn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.attn_q.weight", mat(n_embd, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.attn_k.weight", mat(N_HEAD_KV * head_dim, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.attn_v.weight", mat(N_HEAD_KV * head_dim, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.attn_output.weight", mat(n_embd, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", np.ones(n_embd, dtype=np.float32))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", mat(n_ff, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.ffn_up.weight", mat(n_ff, n_embd, 0.2))
        w.add_tensor(f"blk.{i}.ffn_down.weight", mat(n_embd, n_ff, 0.2))
    w.add_tensor("output_norm.weight", np.ones(n_embd, dtype=np.float32))
    out = mat(n_vocab, n_embd, 0.5)
    out[bos_id:] = 0.0   # BOS, EOS and any other control token: never picked by greedy decoding
    w.add_tensor("output.weight", out)

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


if __name__ == "__main__":  # pragma: no cover - manual use: python tests/llm/tiny_gguf.py out.gguf
    import sys

    print(write_tiny_llama(sys.argv[1] if len(sys.argv) > 1 else "tiny.gguf"))
