"""Untyped test domains in the style of the older planning competitions (kinds as unary predicates), and
answers for their actions: some drop the kind preconditions and stay equivalent (a fluent precondition
already implies the kind), others drop one the action needs and are different."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from domain_drafter.core.bundle import DomainBundle, ProblemFile, load_bundle_path
from domain_drafter.core.reader import read_problem

UNTYPED = Path(__file__).parent / "untyped"


def untyped_bundle(name: str) -> DomainBundle:
    """`shuttle` (air shuttles, travellers, fuel steps) or `haulage` (lorries, drivers, crates)."""
    return load_bundle_path(UNTYPED / name)


def large_shuttle_problem() -> ProblemFile:
    """19 objects: more reachable states than the proof's budget (kept out of the bundle's two problems)."""
    path = UNTYPED / "shuttle-large-p03.pddl"
    text = path.read_text(encoding="utf-8")
    return ProblemFile(path.stem, path, text, read_problem(text, path))


@dataclass(frozen=True)
class Answer:
    domain: str
    action: str
    text: str
    equivalent: bool
    why: str


ANSWERS = (
    # shuttle
    Answer("shuttle", "embark", "(:action embark :parameters (?who ?craft ?where) :precondition (and "
           "(located ?who ?where) (located ?craft ?where)) :effect (and (aboard ?who ?craft) "
           "(not (located ?who ?where))))", False, "a plane boards a plane"),
    Answer("shuttle", "embark", "(:action embark :parameters (?who ?craft ?where) :precondition (and "
           "(traveller ?who) (plane ?craft) (located ?who ?where) (located ?craft ?where)) :effect (and "
           "(aboard ?who ?craft) (not (located ?who ?where))))", True, "only towns have things located there"),
    Answer("shuttle", "disembark", "(:action disembark :parameters (?who ?craft ?where) :precondition (and "
           "(aboard ?who ?craft) (located ?craft ?where)) :effect (and (located ?who ?where) "
           "(not (aboard ?who ?craft))))", True, "only travellers board, only planes are boarded"),
    Answer("shuttle", "hop", "(:action hop :parameters (?craft ?from ?to ?have ?left) :precondition (and "
           "(located ?craft ?from) (fuel ?craft ?have) (below ?left ?have)) :effect (and (located ?craft ?to) "
           "(not (located ?craft ?from)) (fuel ?craft ?left) (not (fuel ?craft ?have))))", False,
           "a plane hops to a traveller"),
    Answer("shuttle", "hop", "(:action hop :parameters (?craft ?from ?to ?have ?left) :precondition (and "
           "(town ?to) (located ?craft ?from) (fuel ?craft ?have) (below ?left ?have)) :effect (and "
           "(located ?craft ?to) (not (located ?craft ?from)) (fuel ?craft ?left) (not (fuel ?craft ?have))))",
           True, "fuel implies a plane, below implies fuel steps"),
    Answer("shuttle", "hop", "(:action hop :parameters (?craft ?from ?to ?have ?left) :precondition (and "
           "(located ?craft ?from) (fuel ?craft ?have)) :effect (and (located ?craft ?to) "
           "(not (located ?craft ?from)) (fuel ?craft ?left) (not (fuel ?craft ?have))))", False,
           "every static precondition dropped: two free parameters"),
    Answer("shuttle", "dash", "(:action dash :parameters (?craft ?from ?to ?have ?mid ?left) :precondition (and "
           "(located ?craft ?from) (fuel ?craft ?have) (below ?mid ?have) (below ?left ?mid)) :effect (and "
           "(located ?craft ?to) (not (located ?craft ?from)) (fuel ?craft ?left) (not (fuel ?craft ?have))))",
           False, "a plane dashes to a fuel step"),
    Answer("shuttle", "dash", "(:action dash :parameters (?craft ?from ?to ?have ?mid ?left) :precondition (and "
           "(town ?to) (located ?craft ?from) (fuel ?craft ?have) (below ?mid ?have) (below ?left ?mid)) "
           ":effect (and (located ?craft ?to) (not (located ?craft ?from)) (fuel ?craft ?left) "
           "(not (fuel ?craft ?have))))", True, "the kinds follow from the fluents and the order of the steps"),
    Answer("shuttle", "dash", "(:action dash :parameters (?craft ?from ?to ?have ?mid ?left) :precondition (and "
           "(located ?craft ?from) (fuel ?craft ?have)) :effect (and (located ?craft ?to) "
           "(not (located ?craft ?from)) (fuel ?craft ?left) (not (fuel ?craft ?have))))", False,
           "every static precondition dropped: three free parameters"),
    Answer("shuttle", "tank", "(:action tank :parameters (?craft ?where ?have ?more) :precondition (and "
           "(located ?craft ?where) (fuel ?craft ?have) (below ?have ?more)) :effect (and (fuel ?craft ?more) "
           "(not (fuel ?craft ?have))))", True, "fuel implies a plane, a plane is only ever in a town"),
    # haulage
    Answer("haulage", "load", "(:action load :parameters (?c ?l ?s) :precondition (and (at ?c ?s) (at ?l ?s)) "
           ":effect (and (loaded ?c ?l) (not (at ?c ?s))))", False, "a driver is loaded like a crate"),
    Answer("haulage", "load", "(:action load :parameters (?c ?l ?s) :precondition (and (crate ?c) (lorry ?l) "
           "(at ?c ?s) (at ?l ?s)) :effect (and (loaded ?c ?l) (not (at ?c ?s))))", True,
           "lorries stand only at sites"),
    Answer("haulage", "unload", "(:action unload :parameters (?c ?l ?s) :precondition (and (loaded ?c ?l) "
           "(at ?l ?s)) :effect (and (at ?c ?s) (not (loaded ?c ?l))))", True,
           "only crates are loaded, only into lorries"),
    Answer("haulage", "climb-in", "(:action climb-in :parameters (?d ?l ?s) :precondition (and (at ?d ?s) "
           "(at ?l ?s) (unmanned ?l)) :effect (and (steering ?d ?l) (not (at ?d ?s)) (not (unmanned ?l))))",
           False, "a crate climbs into a lorry"),
    Answer("haulage", "climb-out", "(:action climb-out :parameters (?d ?l ?s) :precondition (and "
           "(steering ?d ?l) (at ?l ?s)) :effect (and (at ?d ?s) (unmanned ?l) (not (steering ?d ?l))))", True,
           "only drivers steer, only lorries are steered"),
    Answer("haulage", "drive", "(:action drive :parameters (?l ?from ?to ?d) :precondition (and (at ?l ?from) "
           "(steering ?d ?l) (road ?from ?to)) :effect (and (at ?l ?to) (not (at ?l ?from))))", True,
           "steering implies the kinds, roads join sites"),
    Answer("haulage", "drive", "(:action drive :parameters (?l ?from ?to ?d) :precondition (and (at ?l ?from) "
           "(steering ?d ?l)) :effect (and (at ?l ?to) (not (at ?l ?from))))", False,
           "the road dropped too: a lorry drives to a crate"),
    Answer("haulage", "walk", "(:action walk :parameters (?d ?from ?to) :precondition (and (at ?d ?from) "
           "(footpath ?from ?to)) :effect (and (at ?d ?to) (not (at ?d ?from))))", False, "a crate walks"),
)
