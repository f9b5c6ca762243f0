"""A small user domain that uses `(either ...)` in predicates and action parameters (shared by several tests).

Trucks drive on roads, airplanes fly on airways, packages ride in either. `at` takes any of the
three, `in` a package and a vehicle; `load`/`unload` take a vehicle of either kind.
"""

from __future__ import annotations

from pathlib import Path

DOMAIN = """\
(define (domain courier)
  (:requirements :strips :typing)
  (:types truck airplane package location)
  (:predicates
    (at ?x - (either truck airplane package) ?l - location)
    (in ?p - package ?v - (either truck airplane))
    (road ?a ?b - location)
    (airway ?a ?b - location))
  (:action drive
    :parameters (?v - truck ?a ?b - location)
    :precondition (and (at ?v ?a) (road ?a ?b))
    :effect (and (not (at ?v ?a)) (at ?v ?b)))
  (:action fly
    :parameters (?v - airplane ?a ?b - location)
    :precondition (and (at ?v ?a) (airway ?a ?b))
    :effect (and (not (at ?v ?a)) (at ?v ?b)))
  (:action load
    :parameters (?p - package ?v - (either truck airplane) ?l - location)
    :precondition (and (at ?p ?l) (at ?v ?l))
    :effect (and (not (at ?p ?l)) (in ?p ?v)))
  (:action unload
    :parameters (?p - package ?v - (either truck airplane) ?l - location)
    :precondition (and (in ?p ?v) (at ?v ?l))
    :effect (and (not (in ?p ?v)) (at ?p ?l))))
"""

# The package must ride the truck to l2 and the airplane to l3; the airplane could reach l1
# by road in two steps less than the truck route, if it were allowed to drive.
PROBLEM = """\
(define (problem courier-p01)
  (:domain courier)
  (:objects t - truck a - airplane p - package l1 l2 l3 - location)
  (:init (at t l1) (at a l2) (at p l1) (road l1 l2) (road l2 l1) (airway l2 l3) (airway l3 l2))
  (:goal (at p l3)))
"""

DESCRIPTIONS = """\
[predicates.at]
text = "{x} is at {l}"
negated = "{x} is not at {l}"

[predicates.in]
text = "package {p} is in vehicle {v}"
negated = "package {p} is not in vehicle {v}"

[predicates.road]
text = "a road leads from {a} to {b}"

[predicates.airway]
text = "an airway leads from {a} to {b}"

[actions.drive]
summary = "Truck {v} drives from {a} to {b}."

[actions.fly]
summary = "Airplane {v} flies from {a} to {b}."

[actions.load]
summary = "Package {p} is loaded into vehicle {v} at {l}."

[actions.unload]
summary = "Package {p} is unloaded from vehicle {v} at {l}."
"""


def write_courier(folder: Path) -> Path:
    """Write the courier bundle (domain, one problem, descriptions) into `folder`; return it."""
    (folder / "problems").mkdir(parents=True, exist_ok=True)
    (folder / "domain.pddl").write_text(DOMAIN, encoding="utf-8")
    (folder / "problems" / "p01.pddl").write_text(PROBLEM, encoding="utf-8")
    (folder / "descriptions.toml").write_text(DESCRIPTIONS, encoding="utf-8")
    return folder
