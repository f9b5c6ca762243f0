"""The core: what a domain is and what an answer says, with no planner and no model (no Qt).

Domains, problems and bundles (model.py, reader.py, bundle.py), descriptions and prompts, the
answer checks (answers.py: the syntax and semantic classes), ARE, the domain tests file
(domain_tests.py, tests_reader.py with tests_values.py, tests_toml.py, tests_files.py: where it is,
ptest.py), errors, paths, the editor's PDDL layout (pddl_format.py). Imports nothing of domain_drafter above it.
"""
