"""Errors kept in results as data: kind, message, where; stored beside the plain message older readers use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain_drafter.core.errors import (
    DrafterError,
    ErrorKind,
    ErrorRecord,
    ModelError,
    PlannerError,
    SourceLocation,
    error_fields,
    error_from_fields,
)
from domain_drafter.planning.counterexample import ProofError
from domain_drafter.planning.equivalence import EquivalenceReport, equivalence_from_dict
from domain_drafter.planning.grounding import GroundingLimit
from domain_drafter.planning.proof_types import ProofMethod, ProofReport, proof_from_dict


@pytest.mark.parametrize(("exc", "kind"), [(ProofError("a wrong counterexample"), ErrorKind.PROOF),
                                           (GroundingLimit("too many groundings"), ErrorKind.LIMIT),
                                           (PlannerError("K* crashed"), ErrorKind.PLANNER),
                                           (ModelError("not a GGUF"), ErrorKind.MODEL),
                                           (DrafterError("something"), ErrorKind.OTHER)])
def test_every_engine_error_is_a_drafter_error_with_its_kind(exc, kind):
    assert isinstance(exc, DrafterError)
    record = ErrorRecord.of(exc)
    assert record.kind is kind and record.message == str(exc) and record.where is None


def test_the_record_keeps_where_the_error_happened():
    where = SourceLocation(Path("/d/domain.pddl"), 7, 5)
    record = ErrorRecord.of(DrafterError("unexpected ':effect'", where=where))
    assert record.where == "/d/domain.pddl:7:5"
    assert record.message == "/d/domain.pddl:7:5: unexpected ':effect'"


def test_an_exception_of_no_engine_type_is_internal():
    record = ErrorRecord.of(KeyError("x"))
    assert record.kind is ErrorKind.INTERNAL and record.message == "KeyError: 'x'"


def test_stored_fields_keep_the_plain_message_and_read_back_equal():
    record = ErrorRecord(ErrorKind.PLANNER, "the planner failed on p02", "p02")
    fields = json.loads(json.dumps(error_fields(record)))
    assert fields == {"error": "the planner failed on p02", "error_kind": "planner", "error_where": "p02"}
    assert error_from_fields(fields) == record
    assert error_fields(None) == {"error": None, "error_kind": None, "error_where": None}
    assert error_from_fields(error_fields(None)) is None


def test_a_row_written_before_kinds_reads_as_unknown_kind():
    assert error_from_fields({"error": "K* crashed"}) == ErrorRecord(ErrorKind.UNKNOWN, "K* crashed")
    assert error_from_fields({"error": "x", "error_kind": "from-a-later-version"}).kind is ErrorKind.UNKNOWN
    assert error_from_fields({}) is None and error_from_fields({"error": ""}) is None


def test_reports_with_an_error_round_trip_and_old_rows_still_read():
    error = ErrorRecord(ErrorKind.PROOF, "the counterexample does not check out")
    proof = ProofReport(None, ProofMethod.HEURISTIC, False, 0, 2, error=error, reason=error.message)
    data = json.loads(json.dumps(proof.to_dict()))
    assert data["error"] == error.message and data["error_kind"] == "proof"
    assert proof_from_dict(data) == proof
    old = {k: v for k, v in data.items() if k not in ("error_kind", "error_where")}
    assert proof_from_dict(old).error == ErrorRecord(ErrorKind.UNKNOWN, error.message)
    report = EquivalenceReport(None, error=ErrorRecord(ErrorKind.PLANNER, "no plan on p01", "p01"))
    assert report.message == "no plan on p01"
    assert equivalence_from_dict(json.loads(json.dumps(report.to_dict()))) == report
