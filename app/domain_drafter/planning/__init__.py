"""Planning: everything that decides a verdict on the problems' states (no Qt, no model).

The K* adapter and plan cache (the paper's heuristic, equivalence.py), the plan validator, the
state-space proof (proof.py, state_space.py, counterexample.py, witness.py, noplan.py) with its
agreement score (METHOD 6b, proof_types.py), what a domain cannot reach (diagnosis.py: feedback
facts and landmarks), the domain tests' prover (domain_tests.py, tests_exploration.py,
formula_tasks.py) and quick fixes, the Evaluator (evaluate.py), a counterexample saved as a
problem (counterexample_problem.py). May import core/ only.
"""
