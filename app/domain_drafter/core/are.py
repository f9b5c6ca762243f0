"""Action Reconstruction Error (METHOD 7): how far a generated action is from the reference, atom by atom."""

from __future__ import annotations

from dataclasses import dataclass

from domain_drafter.core.model import ActionSchema, Literal


@dataclass(frozen=True)
class AreTerm:
    """One of the three terms: the atoms the generated action misses and those it adds."""

    name: str                      # "pre", "add" or "del"
    missing: tuple[Literal, ...]   # in the reference, not in the generated action
    extra: tuple[Literal, ...]     # in the generated action, not in the reference

    @property
    def value(self) -> int:
        return len(self.missing) + len(self.extra)

    def to_dict(self) -> dict:
        return {"value": self.value, "missing": [str(l) for l in self.missing], "extra": [str(l) for l in self.extra]}


@dataclass(frozen=True)
class AreReport:
    """ARE(a, a') = |pre △ pre'| + |add △ add'| + |del △ del'|, with the atoms behind each term."""

    pre: AreTerm
    add: AreTerm
    delete: AreTerm
    renaming: tuple[tuple[str, str], ...]   # generated parameter -> reference parameter

    @property
    def total(self) -> int:
        return self.pre.value + self.add.value + self.delete.value

    @property
    def terms(self) -> tuple[AreTerm, AreTerm, AreTerm]:
        return (self.pre, self.add, self.delete)

    def to_dict(self) -> dict:
        return {"total": self.total, "pre": self.pre.to_dict(), "add": self.add.to_dict(),
                "del": self.delete.to_dict(), "renaming": dict(self.renaming)}


def parameter_renaming(reference: ActionSchema, generated: ActionSchema) -> dict[str, str]:
    """Map the generated action's parameters onto the reference's by position (the paper's convention).

    Extra parameters keep their names, unless that name is taken by a mapped one; then they get a prime.
    """
    ref, gen = reference.parameter_names, generated.parameter_names
    mapping = {g: r for g, r in zip(gen, ref)}
    taken = set(mapping.values())
    for g in gen[len(ref):]:
        name = g
        while name in taken:
            name += "'"
        mapping[g] = name
        taken.add(name)
    return mapping


def action_reconstruction_error(reference: ActionSchema, generated: ActionSchema) -> AreReport:
    """The ARE of `generated` against `reference`; negated preconditions count apart from positive ones."""
    mapping = parameter_renaming(reference, generated)

    def rename(literals) -> list[Literal]:
        return [Literal(l.atom.rename(mapping), l.positive) for l in literals]

    def term(name: str, ref: list[Literal], gen: list[Literal]) -> AreTerm:
        ref_set, gen_set = set(ref), set(gen)
        return AreTerm(name,
                       tuple(l for l in dict.fromkeys(ref) if l not in gen_set),
                       tuple(l for l in dict.fromkeys(gen) if l not in ref_set))

    gen_effect = rename(generated.effect)
    return AreReport(
        pre=term("pre", list(reference.precondition), rename(generated.precondition)),
        add=term("add", [l for l in reference.effect if l.positive], [l for l in gen_effect if l.positive]),
        delete=term("del", [l for l in reference.effect if not l.positive], [l for l in gen_effect if not l.positive]),
        renaming=tuple(mapping.items()),
    )
