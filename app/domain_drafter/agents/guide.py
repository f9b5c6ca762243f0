"""What the server tells an agent: its instructions, and the prompt for writing and proving an action."""

from __future__ import annotations

INSTRUCTIONS = (
    "Domain Drafter proves PDDL actions right. Every tool takes a domain as 'domain' (a bundled name from "
    "list_domains, or a folder holding domain.pddl and problems/*.pddl) or as 'domain_text' plus 'problems' "
    "(name -> problem text). Errors come back as tool errors with structured content {error: {kind, what, "
    "where: {file, line, column}, hint}}: fix what 'where' points at and call again. The server keeps domains, "
    "reference plans, reachable states and verdicts warm between calls, so calling often is cheap.")

AUTHORING_GUIDE = """\
You are writing the PDDL action '{action}' of the domain '{domain}' with the Domain Drafter tools.

1. Call describe_domain(domain="{domain}") to read the predicates (with what each means), the other
   actions, and the description of '{action}'. Use only those predicates, with their arity and types.
2. Write the action as one '(:action {action} :parameters (...) :precondition (and ...) :effect (and ...))'.
3. Call check_action with it. Each finding has a line:column in your text and says what is wrong (an
   undeclared predicate, a wrong arity, an unbound variable...). Fix and check again until it passes.
4. Call evaluate_action. 'Equivalent' with a proof means the action is right on every state reachable
   from the problems. Otherwise read the counterexample: the plan prefix, the step where your domain and
   the reference part, and the atoms that matter; add or remove that precondition or effect.
   The ARE lists the literals your action has too many or too few.
5. If the domain has tests (describe_domain says tests: true), call run_tests; failing cases name the
   step and the atom, and run_tests(fix=true) suggests the smallest edits that make every case pass.
6. For a domain of your own without a reference action, check plans with validate_plan and single steps
   with applicable (it gives the successor state), and plan to see what K* finds.
Repeat from step 3 until evaluate_action says Equivalent (proven) or every test passes.
"""
