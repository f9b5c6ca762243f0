"""The judge without a reference uses the invariant findings (issue 37): no acceptance until fixed or dismissed."""

from __future__ import annotations

import shutil

from domain_drafter.core.bundle import bundled_root, load_bundle_path
from domain_drafter.core.dismissals import DISMISSED_FILE

KEY = "breaks (at ?0 *) (carry ?0 *)"
PICK_KEEPS_AT = ("(:action pick :parameters (?obj - ball ?room - room ?g - gripper) :precondition (and (at ?obj ?room)"
                 " (at-robby ?room) (free ?g)) :effect (and (carry ?obj ?g) (not (free ?g))))")


def test_the_checks_judge_does_not_accept_an_answer_with_a_finding_until_it_is_dismissed(tmp_path, evaluator):
    from domain_drafter.core.dismissals import save_dismissal
    from domain_drafter.drafting.feedback import judgement_feedback
    from domain_drafter.drafting.judges import checks_judge
    from domain_drafter.drafting.options import Feedback

    folder = tmp_path / "gripper"
    shutil.copytree(bundled_root() / "gripper", folder)
    (folder / "tests.toml").unlink()     # a domain the user brings: no tests, the checks and the problems alone
    bundle = load_bundle_path(folder)
    judged = checks_judge(bundle, "pick", evaluator)(PICK_KEEPS_AT)
    assert judged.check.passed and all(judged.solvable)   # what the judge knew before: nothing wrong
    assert not judged.equivalent and judged.findings[0].key == KEY
    assert "(at ball1 rooma) and (carry ball1 left) both hold" in judgement_feedback(bundle, "pick", judged,
                                                                                      Feedback.CHECKS)
    save_dismissal(bundle, "pick", KEY)
    assert (folder / DISMISSED_FILE).is_file()
    again = checks_judge(bundle, "pick", evaluator)(PICK_KEEPS_AT)
    assert again.findings == () and judgement_feedback(bundle, "pick", again, Feedback.CHECKS) is None
