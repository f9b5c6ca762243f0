"""The paper's result classes and subclasses, in the order the checks decide them."""

from __future__ import annotations

import enum


class ResultClass(enum.Enum):
    """The four classes of an answer; earlier members are decided first (METHOD 5)."""

    SYNTAX_ERROR = "Syntax error"
    SEMANTIC_ERROR = "Semantic error"
    DIFFERENT_DOMAIN = "Different domain"
    EQUIVALENT = "Equivalent"

    @property
    def rank(self) -> int:
        return list(ResultClass).index(self)

    @property
    def is_error(self) -> bool:
        return self in (ResultClass.SYNTAX_ERROR, ResultClass.SEMANTIC_ERROR)


class Subclass(enum.Enum):
    """Subclasses with the paper's names, in precedence order within and across classes."""

    NO_PDDL = "NoPDDL"
    P_ERROR = "PError"
    U_TOKEN = "UToken"
    N_ERROR = "NError"
    T_ERROR = "TError"
    PA_ERROR = "PAError"
    BP_ERROR = "BPError"
    NO_PLAN = "NoPlan"
    NP_APP = "NPApp"
    OP_APP = "OPApp"
    EQUIVALENT = "Equivalent"

    @property
    def result_class(self) -> ResultClass:
        return _CLASS_OF[self]

    @property
    def rank(self) -> int:
        return list(Subclass).index(self)

    @classmethod
    def from_name(cls, text: str) -> Subclass:
        for member in cls:
            if text in (member.value, member.name):
                return member
        raise ValueError(f"unknown subclass {text!r}")


_CLASS_OF = {
    Subclass.NO_PDDL: ResultClass.SYNTAX_ERROR,
    Subclass.P_ERROR: ResultClass.SYNTAX_ERROR,
    Subclass.U_TOKEN: ResultClass.SYNTAX_ERROR,
    Subclass.N_ERROR: ResultClass.SEMANTIC_ERROR,
    Subclass.T_ERROR: ResultClass.SEMANTIC_ERROR,
    Subclass.PA_ERROR: ResultClass.SEMANTIC_ERROR,
    Subclass.BP_ERROR: ResultClass.SEMANTIC_ERROR,
    Subclass.NO_PLAN: ResultClass.DIFFERENT_DOMAIN,
    Subclass.NP_APP: ResultClass.DIFFERENT_DOMAIN,
    Subclass.OP_APP: ResultClass.DIFFERENT_DOMAIN,
    Subclass.EQUIVALENT: ResultClass.EQUIVALENT,
}
