"""A logistics domain and a problem with more than 10^6 reachable states, written by the tests.

Three cities, each with an airport, an office and a truck; one airplane; five packages. Every
package can be at any of the six places or in any of the four vehicles, each truck at either
place of its city, the airplane at any airport, all independently and all reachable:
10^5 * 2^3 * 3 = 2,400,000 states.
"""

from __future__ import annotations

from pathlib import Path

CITIES = ("c1", "c2", "c3")
PACKAGES = tuple(f"pkg{i}" for i in range(1, 6))
REACHABLE_STATES = (2 * len(CITIES) + len(CITIES) + 1) ** len(PACKAGES) * 2 ** len(CITIES) * len(CITIES)


def problem_text() -> str:
    airports = [f"{c}-airport" for c in CITIES]
    offices = [f"{c}-office" for c in CITIES]
    trucks = [f"{c}-truck" for c in CITIES]
    init = [f"(in-city {p} {c})" for c in CITIES for p in (f"{c}-airport", f"{c}-office")]
    init += [f"(at {c}-truck {c}-office)" for c in CITIES] + ["(at plane1 c1-airport)"]
    init += [f"(at {p} {offices[i % len(offices)]})" for i, p in enumerate(PACKAGES)]
    goal = [f"(at {p} {airports[(i + 1) % len(airports)]})" for i, p in enumerate(PACKAGES)]
    return (f"(define (problem big-logistics) (:domain logistics)\n"
            f"  (:objects {' '.join(CITIES)} - city {' '.join(airports)} - airport {' '.join(offices)} - location\n"
            f"    {' '.join(trucks)} - truck plane1 - airplane {' '.join(PACKAGES)} - package)\n"
            f"  (:init {' '.join(init)})\n  (:goal (and {' '.join(goal)})))\n")


def write_big_logistics(folder: Path, bundled_domain: Path) -> Path:
    """A bundle folder: the bundled logistics domain with :negative-preconditions, and the big problem."""
    folder.mkdir(parents=True, exist_ok=True)
    text = bundled_domain.read_text(encoding="utf-8")
    text = text.replace("(:requirements :strips :typing)", "(:requirements :strips :typing :negative-preconditions)")
    assert ":negative-preconditions" in text
    (folder / "domain.pddl").write_text(text, encoding="utf-8")
    (folder / "problems").mkdir(exist_ok=True)
    (folder / "problems" / "p01.pddl").write_text(problem_text(), encoding="utf-8")
    return folder
