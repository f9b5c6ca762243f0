"""The PDDL lexer of the highlighter, pinned by golden token streams (whitespace tokens left out)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers.pddl import PddlLexer
from pygments.token import Error, Name, Whitespace

from domain_drafter.gui.editor.pddl_lexer import DomainDrafterPddlLexer

# name: (source, golden stream: one "TokenType value" a line)
GOLDEN = {
    'gripper_pick': (
        '(:action pick\n  :parameters (?obj - ball ?room - room ?g - gripper)\n  :precondition (and (at ?obj ?room) (at-robby ?room) (free ?g))\n  :effect (and (carry ?obj ?g) (not (at ?obj ?room)) (not (free ?g))))',
        """
        Punctuation (
        Keyword :action
        Name pick
        Keyword :parameters
        Punctuation (
        Name.Variable ?obj
        Operator -
        Keyword.Type ball
        Name.Variable ?room
        Operator -
        Keyword.Type room
        Name.Variable ?g
        Operator -
        Keyword.Type gripper
        Punctuation )
        Keyword :precondition
        Punctuation (
        Name.Builtin and
        Punctuation (
        Name.Function at
        Name.Variable ?obj
        Name.Variable ?room
        Punctuation )
        Punctuation (
        Name.Function at-robby
        Name.Variable ?room
        Punctuation )
        Punctuation (
        Name.Function free
        Name.Variable ?g
        Punctuation )
        Punctuation )
        Keyword :effect
        Punctuation (
        Name.Builtin and
        Punctuation (
        Name.Function carry
        Name.Variable ?obj
        Name.Variable ?g
        Punctuation )
        Punctuation (
        Name.Builtin not
        Punctuation (
        Name.Function at
        Name.Variable ?obj
        Name.Variable ?room
        Punctuation )
        Punctuation )
        Punctuation (
        Name.Builtin not
        Punctuation (
        Name.Function free
        Name.Variable ?g
        Punctuation )
        Punctuation )
        Punctuation )
        Punctuation )
        """),
    'upper_case': (
        '(:ACTION Stack :Parameters (?X - Block) :EFFECT (AND (NOT (On ?X ?Y))))',
        """
        Punctuation (
        Keyword :ACTION
        Name Stack
        Keyword :Parameters
        Punctuation (
        Name.Variable ?X
        Operator -
        Keyword.Type Block
        Punctuation )
        Keyword :EFFECT
        Punctuation (
        Name.Builtin AND
        Punctuation (
        Name.Builtin NOT
        Punctuation (
        Name.Function On
        Name.Variable ?X
        Name.Variable ?Y
        Punctuation )
        Punctuation )
        Punctuation )
        Punctuation )
        """),
    'temporal_at': (
        '(at start (at ?t ?l)) (at end (not-clear ?x)) (at 10 (p))',
        """
        Punctuation (
        Name.Builtin at
        Name.Builtin start
        Punctuation (
        Name.Function at
        Name.Variable ?t
        Name.Variable ?l
        Punctuation )
        Punctuation )
        Punctuation (
        Name.Builtin at
        Name.Builtin end
        Punctuation (
        Name.Function not-clear
        Name.Variable ?x
        Punctuation )
        Punctuation )
        Punctuation (
        Name.Builtin at
        Literal.Number.Integer 10
        Punctuation (
        Name.Function p
        Punctuation )
        Punctuation )
        """),
    'prose_around_an_answer': (
        'Here is the action: (:action x) ; done.\nThanks!',
        """
        Name Here
        Name is
        Name the
        Name action
        Text :
        Punctuation (
        Keyword :action
        Name x
        Punctuation )
        Comment.Singleline ; done.
        Name Thanks
        Text !
        """),
    'domain_header': (
        '(define (domain d) (:requirements :strips :typing) (:types a - object) (:constants left - g) (:foo) (= ?a ?b))',
        """
        Punctuation (
        Name.Builtin define
        Punctuation (
        Name.Builtin domain
        Name d
        Punctuation )
        Punctuation (
        Keyword :requirements
        Keyword :strips
        Keyword :typing
        Punctuation )
        Punctuation (
        Keyword :types
        Name a
        Operator -
        Keyword.Type object
        Punctuation )
        Punctuation (
        Keyword :constants
        Name left
        Operator -
        Keyword.Type g
        Punctuation )
        Punctuation (
        Keyword.Pseudo :foo
        Punctuation )
        Punctuation (
        Operator =
        Name.Variable ?a
        Name.Variable ?b
        Punctuation )
        Punctuation )
        """),
}


def stream(text: str) -> list[str]:
    return [f"{str(ttype).removeprefix('Token.')} {value}"
            for ttype, value in DomainDrafterPddlLexer().get_tokens(text) if ttype is not Whitespace]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_token_stream_matches_the_golden_one(name):
    source, golden = GOLDEN[name]
    assert stream(source) == [line.strip() for line in golden.strip().splitlines()]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_tokens_cover_the_text_exactly(name):
    source, _ = GOLDEN[name]
    tokens = list(DomainDrafterPddlLexer(stripnl=False, ensurenl=False).get_tokens_unprocessed(source))
    assert "".join(value for _, _, value in tokens) == source
    assert [index for index, _, _ in tokens] == [sum(len(v) for _, _, v in tokens[:i]) for i in range(len(tokens))]


def test_what_pygments_own_lexer_gets_wrong_and_we_fix():
    """Why the subclass exists: Pygments' PddlLexer colours the user predicate `at` as a builtin,
    splits `at-robby` into builtin + operator + name, and fails on upper-case keywords."""
    theirs = [(t, v) for t, v in PddlLexer().get_tokens("(at ?o ?r) (at-robby ?r) (:ACTION a)") if t is not Whitespace]
    assert (Name.Builtin, "at") in theirs
    assert (Error, ":") in theirs
    ours = stream("(at ?o ?r) (at-robby ?r) (:ACTION a)")
    assert "Name.Function at" in ours and "Name.Function at-robby" in ours and "Keyword :ACTION" in ours
    assert not any(line.startswith("Error") for line in ours)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_lexes_without_error_tokens(text):
    tokens = list(DomainDrafterPddlLexer(stripnl=False, ensurenl=False).get_tokens_unprocessed(text))
    assert all(ttype is not Error and not str(ttype).startswith("Token.Error") for _, ttype, _ in tokens)
    assert "".join(value for _, _, value in tokens) == text
