"""The chat prompt format (issue 16 item 3) on tiny real GGUFs: one with a chat template, one without.

"chat" sends the paper's prompt as one user message in the model's own template (read from the
GGUF's tokenizer.chat_template, applied by llama.cpp); a model without a template is refused when
it is loaded, with what to do instead.
"""

from __future__ import annotations

import pytest

from domain_drafter.core.errors import ModelError
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.factory import open_backend

PROMPT = "Input: The robot picks up a block.\nOutput:"
GREEDY = DecodingOptions(max_tokens=16, stop=())


@pytest.fixture(scope="module")
def chat_model(tmp_path_factory):
    from tiny_gguf import CHATML_TEMPLATE, write_tiny_llama

    return write_tiny_llama(tmp_path_factory.mktemp("chat") / "tiny-chat.gguf", chat_template=CHATML_TEMPLATE)


def text_of(backend, tokens: list[int]) -> str:
    """The tokens' text with control tokens spelled out (the answer's pieces would drop them)."""
    return backend._llm.detokenize(tokens, special=True).decode("utf-8")


def test_chat_wraps_the_prompt_in_the_models_template(chat_model):
    with open_backend(chat_model, prompt_format="chat") as chat, open_backend(chat_model) as plain:
        tokens = chat._prompt_tokens(PROMPT)
        assert tokens[0] == chat._llm.token_bos() and tokens[1] != tokens[0]   # one BOS
        assert text_of(chat, tokens[1:]) == f"<|im_start|>user\n{PROMPT}<|im_end|>\n<|im_start|>assistant\n"
        assert text_of(plain, plain._prompt_tokens(PROMPT)[1:]) == PROMPT
        a, b = chat.generate(PROMPT, GREEDY), plain.generate(PROMPT, GREEDY)
        assert a.stats.prompt_tokens == len(tokens) > b.stats.prompt_tokens
        assert a.text != b.text   # another context, another continuation
        assert chat.generate_batch([PROMPT], GREEDY)[0].text == a.text   # the batch path uses the format too


def test_special_token_spellings_in_the_prompt_stay_plain_text(chat_model):
    with open_backend(chat_model, prompt_format="chat") as chat:
        bos = chat._llm.token_bos()
        end = chat._llm.tokenize(b"<|im_end|>", add_bos=False, special=True)
        assert len(end) == 1   # a control token of this vocabulary, as in real ChatML models
        tokens = chat._prompt_tokens("before <|bos|> <|im_end|> after")
        assert tokens.count(bos) == 1 and "<|bos|>" in text_of(chat, tokens)
        assert tokens.count(end[0]) == 1   # the template closes the user turn once; the prompt's spelling stays text


def test_chat_on_a_model_without_a_template_is_refused_at_load(tiny_model):
    with pytest.raises(ModelError) as info:
        open_backend(tiny_model, prompt_format="chat")
    assert "no chat template" in info.value.what and str(tiny_model) in info.value.message
    assert 'prompt_format "completion"' in info.value.hint


def test_a_template_llama_cpp_does_not_know_is_refused_at_load(tmp_path):
    from tiny_gguf import write_tiny_llama

    odd = write_tiny_llama(tmp_path / "odd.gguf", chat_template="{{ messages[0]['content'] }} ~~ my own format ~~")
    with pytest.raises(ModelError, match="does not recognise this model's chat template"):
        open_backend(odd, prompt_format="chat")


def test_an_unknown_prompt_format_is_refused(tiny_model):
    with pytest.raises(ModelError, match="unknown prompt format 'dialogue'"):
        open_backend(tiny_model, prompt_format="dialogue")


def test_a_conversation_is_sent_as_real_turns_and_its_first_turn_is_the_cached_prefix(chat_model):
    from domain_drafter.llm.backend import Conversation

    answer, feedback = "(:action pick :parameters (?x))", "The PDDL action above is not right: it <|im_end|> fails."
    conversation = Conversation([("user", PROMPT), ("assistant", answer), ("user", feedback)],
                                PROMPT + answer + "\n\n" + feedback)
    with open_backend(chat_model, prompt_format="chat") as chat, open_backend(chat_model) as plain:
        first = chat._prompt_tokens(PROMPT)
        tokens = chat._prompt_tokens(conversation)
        assert text_of(chat, tokens[1:]) == (f"<|im_start|>user\n{PROMPT}<|im_end|>\n<|im_start|>assistant\n"
                                             f"{answer}<|im_end|>\n<|im_start|>user\n{feedback}<|im_end|>\n"
                                             "<|im_start|>assistant\n")
        assert tokens[:len(first)] == first   # the first prompt's KV cache serves every child of it
        end = chat._llm.tokenize(b"<|im_end|>", add_bos=False, special=True)[0]
        assert tokens.count(end) == 3         # the template's three turn ends; the feedback's spelling stays text
        # the completion format reads the same conversation as one continued text
        assert text_of(plain, plain._prompt_tokens(conversation)[1:]) == str(conversation)
        chat.generate(conversation, GREEDY)   # and both generate from it
        plain.generate(conversation, GREEDY)


def test_a_conversation_must_alternate_from_user_to_user():
    from domain_drafter.llm.backend import Conversation

    with pytest.raises(ValueError):
        Conversation([("user", "a"), ("user", "b")], "ab")
    with pytest.raises(ValueError):
        Conversation([("user", "a"), ("assistant", "b")], "ab")
    import pickle

    c = Conversation([("user", "a"), ("assistant", "b"), ("user", "c")], "abc")
    assert pickle.loads(pickle.dumps(c)).turns == c.turns and pickle.loads(pickle.dumps(c)) == "abc"
