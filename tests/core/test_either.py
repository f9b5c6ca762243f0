"""`(either ...)` types are carried exactly through loading, the checks, D' and ARE: never widened."""

from __future__ import annotations

import pytest
from tests.core.courier import DOMAIN, write_courier

from domain_drafter.core.answers import check_answer
from domain_drafter.core.are import action_reconstruction_error
from domain_drafter.core.bundle import load_bundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.descriptions import DescriptionClass, describe_action
from domain_drafter.core.errors import DrafterError
from domain_drafter.core.reader import read_domain
from domain_drafter.planning.validator import FailureKind, PlanValidator

LOAD = ("(:action load :parameters (?p - package ?v - (either truck airplane) ?l - location) "
        ":precondition (and (at ?p ?l) (at ?v ?l)) :effect (and (not (at ?p ?l)) (in ?p ?v)))")


@pytest.fixture(scope="module")
def courier(tmp_path_factory):
    return load_bundle(write_courier(tmp_path_factory.mktemp("either") / "courier"))


def test_domain_with_either_in_predicates_and_parameters_loads(courier):
    at = courier.domain.predicate_map["at"]
    assert [p.type for p in at.parameters] == ["(either airplane package truck)", "location"]
    assert courier.domain.predicate_map["in"].parameters[1].type == "(either airplane truck)"
    assert courier.domain.action("load").parameters[1].type == "(either airplane truck)"
    assert courier.domain.action("drive").parameters[0].type == "truck"


def test_either_parameter_in_an_answer_passes_and_is_kept_exactly(courier):
    report = check_answer(LOAD, courier.domain, "load")
    assert report.passed, report.findings
    assert [p.type for p in report.action.parameters] == ["package", "(either airplane truck)", "location"]


def test_either_member_that_fits_no_member_of_the_predicate_type_is_a_terror(courier):
    answer = LOAD.replace("(either truck airplane)", "(either truck package)")
    report = check_answer(answer, courier.domain, "load")
    assert report.subclass is Subclass.T_ERROR
    assert [f.reason for f in report.findings] == ["argument-type"]
    finding = report.findings[0]
    assert finding.message == ("In (in ?p ?v), ?v is of type 'package', but 'in' expects "
                               "'(either airplane truck)' there: (in ?p - package ?v - (either airplane truck)).")
    assert answer[finding.span[0]:finding.span[1]] == "?v"


def test_either_with_an_undeclared_member_is_an_undeclared_type(courier):
    answer = LOAD.replace("(either truck airplane)", "(either truck boat)")
    report = check_answer(answer, courier.domain, "load")
    assert report.subclass is Subclass.T_ERROR and report.findings[0].reason == "undeclared-type"
    assert "'boat'" in report.findings[0].message


def test_either_argument_in_a_single_type_slot_names_the_member_that_does_not_fit(courier):
    answer = ("(:action drive :parameters (?v - (either truck airplane) ?a ?b - location) "
              ":precondition (and (at ?v ?a) (road ?a ?b) (in ?v ?v)) :effect (and (not (at ?v ?a)) (at ?v ?b)))")
    report = check_answer(answer, courier.domain, "drive")
    assert report.subclass is Subclass.T_ERROR
    messages = [f.message for f in report.findings]
    # (in ?v ?v): the first slot takes a package, which neither member is; the second fits.
    assert messages == [  # the members in the order the answer wrote them
        "In (in ?v ?v), ?v is of type 'truck', but 'in' expects 'package' there: "
        "(in ?p - package ?v - (either airplane truck)).",
        "In (in ?v ?v), ?v is of type 'airplane', but 'in' expects 'package' there: "
        "(in ?p - package ?v - (either airplane truck)).",
    ]


def test_generated_domain_text_keeps_the_either_and_reads_back_equal(courier):
    answer = ("(:action drive :parameters (?v - (either truck airplane) ?a ?b - location) "
              ":precondition (and (at ?v ?a) (road ?a ?b)) :effect (and (not (at ?v ?a)) (at ?v ?b)))")
    report = check_answer(answer, courier.domain, "drive")
    assert report.passed, report.findings
    generated = courier.domain.with_action(report.action)
    text = generated.to_pddl()
    assert ":parameters (?v - (either airplane truck) ?a ?b - location)" in text
    assert "(at ?x - (either airplane package truck) ?l - location)" in text
    assert "?v - object" not in text and "?x - object" not in text
    again, _ = read_domain(text)
    assert again == generated


def test_are_of_an_either_answer_counts_atoms_exactly(courier):
    answer = ("(:action load :parameters (?q - package ?w - (either airplane truck) ?m - location) "
              ":precondition (and (at ?q ?m) (at ?w ?m) (at ?w ?m)) :effect (and (in ?q ?w)))")
    report = check_answer(answer, courier.domain, "load")
    assert report.passed, report.findings
    are = action_reconstruction_error(courier.domain.action("load"), report.action)
    assert dict(are.renaming) == {"?q": "?p", "?w": "?v", "?m": "?l"}
    assert (are.pre.value, are.add.value, are.delete.value) == (0, 0, 1)
    assert [str(l) for l in are.delete.missing] == ["(not (at ?p ?l))"] and are.delete.extra == ()


def test_validator_accepts_either_member_and_rejects_other_types(courier):
    validator = PlanValidator(courier.domain, courier.problems[0].problem)
    good = [("load", "p", "t", "l1"), ("drive", "t", "l1", "l2"), ("unload", "p", "t", "l2"),
            ("load", "p", "a", "l2"), ("fly", "a", "l2", "l3"), ("unload", "p", "a", "l3")]
    assert validator.validate(good).valid
    bad = validator.validate([("load", "p", "p", "l1")])
    assert bad.kind is FailureKind.WRONG_TYPE
    assert bad.message == "step 1 (load p p l1): 'p' is a package, not a (either airplane truck)"


def test_base_description_says_either_type_in_words(courier):
    text = describe_action(courier.domain, courier.descriptions, "load", DescriptionClass.BASE)
    assert "?v of type truck or airplane" in text or "?v of type airplane or truck" in text


@pytest.mark.parametrize(("old", "new", "what"), [
    ("(:types truck airplane package location)", "(:types truck airplane - (either location package) package location)",
     "supertype"),
    ("(:types truck airplane package location)",
     "(:types truck airplane package location)\n  (:constants hq - (either location truck))", "constant"),
])
def test_either_where_typed_strips_cannot_carry_it_is_refused_at_load(tmp_path, old, new, what):
    folder = write_courier(tmp_path / "courier")
    text = DOMAIN.replace(old, new)
    (folder / "domain.pddl").write_text(text)
    with pytest.raises(DrafterError) as err:
        load_bundle(folder)
    assert err.value.exit_code == 3
    where = err.value.where
    offset = text.index("(either", text.index(new[:20]) if what == "supertype" else text.index("(:constants"))
    assert (where.line, where.column) == (text[:offset].count("\n") + 1, offset - text.rfind("\n", 0, offset))
    assert "either" in err.value.what and what in err.value.what
