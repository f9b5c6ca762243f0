"""What no acceptable answer can hold (drafting/nogoods.py, issue 37): known before the first call, or learned from
the tests an answer fails, and refused to the calls after it. Real parser, explorer, tests runner and tiny model."""

from __future__ import annotations

from pddl_text import section_literals, with_precondition

from domain_drafter.core.bundle import load_bundled
from domain_drafter.core.domain_tests import CaseKind
from domain_drafter.drafting.blind import blind_setup
from domain_drafter.drafting.nogoods import from_failed_tests, unreachable_preconditions
from domain_drafter.drafting.options import DraftOptions, SearchOptions
from domain_drafter.drafting.search import draft_decoding, search_action
from domain_drafter.llm.backend import DecodingOptions
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.planning.diagnosis import reachability
from domain_drafter.planning.tests_report import CaseResult, Evidence, Verdict
from domain_drafter.planning.validator import FailureKind, PlanStatus, PlanValidation

STACK_ON_THE_TABLE = ("(:action stack :parameters (?x ?y - block) :precondition (and (holding ?x) (clear ?y) "
                      "(ontable ?y)) :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) "
                      "(not (clear ?y))))")


def precondition_literals(bundle, action):
    return ActionGrammar(bundle.domain, action).literal_sets()[0]


def test_unreachable_preconditions_name_no_reference_literal_and_each_one_blocks_the_action(bundles):
    """Over the 32 actions: no reference precondition literal is named; gripper pick's `(carry ?obj ?g)` is (only
    pick makes a ball carried); and the reference with a named literal added never applies on any problem."""
    named = 0
    for bundle in bundles.values():
        for action in bundle.action_names:
            never = unreachable_preconditions(bundle, action, precondition_literals(bundle, action))
            pre = {str(lit) for lit in bundle.domain.action(action).precondition}
            assert not set(never) & pre, (bundle.name, action)
            named += len(never)
            for literal in never[:1]:
                mutant = with_precondition(bundle, action, (literal,))
                reach = reachability(bundle.domain.with_action(mutant, replacing=action), bundle.problems)
                assert all(any(b.action == action for b in r.blocked) for r in reach), (bundle.name, action, literal)
    assert "(carry ?obj ?g)" in unreachable_preconditions(bundles["gripper"], "pick",
                                                          precondition_literals(bundles["gripper"], "pick"))
    assert named >= 30


def test_the_search_decoding_forbids_the_unreachable_literals_from_the_first_call(bundles):
    decoding = draft_decoding(bundles["gripper"], "pick", DraftOptions(grammar=True))
    assert "(carry ?obj ?g)" in decoding.forbidden[0]
    assert decoding.forbidden[1] == ("(not (at-robby ?room))",)    # an unbalanced delete: pick names no other room
    assert draft_decoding(bundles["gripper"], "pick", DraftOptions()).forbidden is None     # no grammar: no list


def test_a_failed_test_names_the_precondition_literal_it_shows_false(evaluator, bundles):
    """Blocksworld stack that asks the block below to be on the table: the tests' plans stack onto a block that
    is on another, so `(ontable ?y)` is learned; the reference's text fails no case and teaches nothing."""
    setup = blind_setup(bundles["blocksworld"], "stack", evaluator, SearchOptions())
    literals = precondition_literals(setup.bundle, "stack")
    wrong = setup.judge(STACK_ON_THE_TABLE)
    assert wrong.test_failures and not wrong.equivalent
    assert from_failed_tests(setup.bundle, "stack", wrong.test_failures, literals) == ("(ontable ?y)",)
    right = setup.judge(bundles["blocksworld"].domain.action("stack").to_pddl())
    assert right.equivalent and right.test_failures == ()
    assert from_failed_tests(setup.bundle, "stack", right.test_failures, literals) == ()


def _failed(plan: tuple[str, ...], step: int, atoms: tuple[str, ...], kind=CaseKind.PLAN) -> CaseResult:
    """A failed case as the tests runner reports it (built here: the runner only writes it after a run, and these
    shapes, the action's second step or an object bound twice, need a hand-made plan to show)."""
    check = PlanValidation(PlanStatus.INVALID, FailureKind.PRECONDITION, step, plan[step - 1], atoms, "not satisfied")
    return CaseResult("case", kind, Verdict.FAIL, "the plan must work", Evidence("p01", plan[:step], step, atoms,
                                                                                (), (), check))


def test_only_the_actions_first_step_and_a_sure_lifting_teach(bundles):
    bundle = bundles["blocksworld"]
    literals = precondition_literals(bundle, "stack")
    first = _failed(("(pick-up a)", "(stack a b)"), 2, ("(ontable b)",))
    assert from_failed_tests(bundle, "stack", [first], literals) == ("(ontable ?y)",)
    second = _failed(("(pick-up a)", "(stack a b)", "(pick-up c)", "(stack c a)"), 4, ("(ontable a)",))
    assert from_failed_tests(bundle, "stack", [second], literals) == ()      # after its own first step: not sure
    twice = _failed(("(pick-up a)", "(stack a a)"), 2, ("(ontable a)",))
    assert from_failed_tests(bundle, "stack", [twice], literals) == ()       # `a` is ?x and ?y
    other = _failed(("(pick-up a)", "(stack a b)"), 1, ("(clear a)",))
    assert from_failed_tests(bundle, "stack", [other], literals) == ()       # another action's step
    negative = _failed(("(pick-up a)", "(stack a b)"), 2, ("(not (clear b))",))
    assert from_failed_tests(bundle, "stack", [negative], literals) == ()    # not a literal the grammar writes
    must_fail = _failed(("(pick-up a)", "(stack a b)"), 2, ("(ontable b)",), CaseKind.PLAN_FAILS)
    assert from_failed_tests(bundle, "stack", [must_fail], literals) == ()   # that plan had to fail


def test_a_constant_bound_to_no_parameter_teaches_the_literal_as_written(bundles):
    """Gripper move asking for both grippers free (Qwen wrote it in 8 of 16 calls, with tests, blind): the
    plan's third step moves with a ball in each gripper, so `(free right)` and `(free left)` are learned as
    written; `roomc` is bound to no parameter and is no constant, so nothing is learned of `(at-robby roomc)`."""
    bundle = bundles["gripper"]
    literals = precondition_literals(bundle, "move")
    assert {"(free right)", "(free left)"} <= set(literals)
    plan = ("(pick ball1 rooma left)", "(pick ball2 rooma right)", "(move rooma roomb)")
    both = _failed(plan, 3, ("(free right)", "(free left)"))
    assert set(from_failed_tests(bundle, "move", [both], literals)) == {"(free right)", "(free left)"}
    elsewhere = _failed(("(move rooma roomb)",), 1, ("(at-robby roomc)", "(free left)"))
    assert from_failed_tests(bundle, "move", [elsewhere], literals) == ("(free left)",)


def test_a_blind_search_never_writes_a_learned_literal_again(tiny_backend, evaluator, bundles):
    """On the tiny model: once an answer's failed tests name a literal, no later model-written answer's
    precondition holds it, and some literal is learned on the way (else the test shows nothing)."""
    action = "stack"
    setup = blind_setup(bundles["blocksworld"], action, evaluator,
                        SearchOptions(budget=10, width=2, children=2, temperature=1.0))
    assert setup.options.forbid_learned
    result = search_action(setup.bundle, action, tiny_backend, evaluator, load_bundled(),
                           DraftOptions(decoding=DecodingOptions(max_tokens=160), grammar=True), setup.options,
                           judge=setup.judge)
    literals = precondition_literals(setup.bundle, action)
    learned: set[str] = set()
    taught = 0
    for node in result.nodes:
        if node.repair_of is None and node.duplicate_of is None:
            sections = section_literals(node.answer)
            assert not (set(sections[0]) & learned if sections else set()), (node.id, node.answer, learned)
        new = set(from_failed_tests(setup.bundle, action, node.judgement.test_failures, literals))
        taught += bool(new - learned)
        learned |= new
    assert taught, [n.answer for n in result.nodes]
