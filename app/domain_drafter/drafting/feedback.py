"""Feedback that says what is wrong with an answer, in plain words, for the next prompt (issue: feedback kinds).

Every kind starts from the checks. `checks` uses nothing of the reference: the findings, the invariant
findings (what the domain's other actions keep, broken by the answer, with the state), and for
an answer whose domain cannot solve a problem, what that domain (the answer in place of the
action, the rest of the domain as the author wrote it) can never reach, computed from it alone.
`plans` adds the distinguishing state of the proof, worded as the edit it calls for ("missing
precondition (clear ?x)"). `landmarks` adds the reference's fact landmarks that the answer's
domain can no longer reach. `all` says everything. Short: one state, a few atoms. Judged without a
reference, the domain's failing test cases in words follow (`judgement_feedback`: what the search and
the New action flow re-prompt with).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from domain_drafter.core.answers import CheckReport
from domain_drafter.core.bundle import DomainBundle, ProblemFile
from domain_drafter.core.classes import ResultClass, Subclass
from domain_drafter.core.model import Domain
from domain_drafter.core.prompt import PromptTemplate
from domain_drafter.drafting.judges import Judgement
from domain_drafter.drafting.options import Feedback
from domain_drafter.llm.backend import Conversation
from domain_drafter.planning.diagnosis import Reachability, lost_landmarks, reachability
from domain_drafter.planning.evaluate import EvaluationResult

MAX_GOAL_ATOMS = 2
MAX_BLOCKED = 2
MAX_LANDMARKS = 3


def answer_domain(bundle: DomainBundle, action: str, check: CheckReport) -> Domain | None:
    """The domain with the answer in the action's place (None when the answer did not parse)."""
    if check.action is None:
        return None
    return bundle.domain.with_action(check.action, replacing=action)


def cannot_reach(domain: Domain | None, problems: Sequence[ProblemFile], action: str,
                 reach: Sequence[Reachability] | None = None) -> str | None:
    """What `domain` never reaches on its first problem with an unreachable goal, in words (None: nothing shown).

    Uses `domain` (explored here unless `reach` is given) and the problems only: the checks' NoPlan feedback,
    safe without a reference.
    """
    if reach is None:
        if domain is None:
            return None
        reach = reachability(domain, problems)
    for r in reach:
        if r.goal_reached is not False:
            continue
        parts = []
        if r.unreached_goal:
            atoms = " ".join(r.unreached_goal[:MAX_GOAL_ATOMS])
            parts.append(f"on problem {r.problem} the goal atom{'s' if len(r.unreached_goal) > 1 else ''} {atoms} "
                         "can never be reached")
            parts.extend(r.why[:1])
        else:
            parts.append(f"on problem {r.problem} no reachable state satisfies the whole goal")
        blocked = sorted(r.blocked, key=lambda b: (b.action != action, b.action))[:MAX_BLOCKED]
        for b in blocked:
            who = "your action" if b.action == action else f"the action {b.action}"
            if b.static:
                parts.append(f"{who} never applies ({b.precondition} match no objects)")
            elif b.precondition.startswith("together: "):
                parts.append(f"{who} never becomes applicable: its preconditions "
                             f"{b.precondition.removeprefix('together: ')} never hold together")
            else:
                parts.append(f"{who} never becomes applicable: its precondition {b.precondition} never holds")
        return "; ".join(parts) + "."
    return None


def _checks(result: EvaluationResult | None, check: CheckReport, bundle: DomainBundle, action: str,
            reach: Sequence[Reachability] | None, solvable: Sequence[bool | None] = ()) -> str | None:
    if check.findings and not check.passed:
        return " ".join(f.message for f in check.findings[:3])
    subclass = result.subclass if result is not None else None
    noplan = subclass is Subclass.NO_PLAN or (result is None and any(s is False for s in solvable))
    if not noplan:
        return None
    if reach is None:
        domain = answer_domain(bundle, action, check)
        reach = reachability(domain, bundle.problems) if domain is not None else None
    words = cannot_reach(None, bundle.problems, action, reach) if reach is not None else None
    return words or ("with this action, some problem of the domain has no plan: a precondition can never be "
                     "met or an effect is missing.")


ISSUES_SHOWN = 3   # the distinguishing state's issues the plans feedback names, first first


def _plans(result: EvaluationResult) -> str | None:
    proof = result.proof
    if proof is not None and proof.counterexample is not None and result.subclass is not Subclass.EQUIVALENT:
        s = proof.counterexample.state
        where = f"after the steps {' '.join(s.prefix)}" if s.prefix else "in the initial state"
        issues = "; ".join(s.issues[:ISSUES_SHOWN]) if s.issues else f"it should do this: {s.reference}; yours: {s.generated}"
        return f"on problem {s.problem}, {where}, the step {s.step} goes wrong: {issues}."
    cx = result.equivalence.counterexample if result.equivalence is not None else None
    if cx is not None:
        plan = " ".join(cx.plan)
        why = f" ({cx.validation.message})" if cx.validation is not None else ""
        if result.subclass is Subclass.NP_APP:
            return f"your action allows the plan {plan}, which is not possible in the intended domain{why}."
        if result.subclass is Subclass.OP_APP:
            return f"your action forbids the plan {plan}, which is possible in the intended domain{why}."
    return None


def _landmarks(bundle: DomainBundle, action: str, check: CheckReport,
               reach: Sequence[Reachability] | None) -> str | None:
    if reach is None:
        domain = answer_domain(bundle, action, check)
        if domain is None:
            return None
        reach = reachability(domain, bundle.problems)
    lost = lost_landmarks(bundle.domain, bundle.problems, reach)
    if not lost:
        return None
    problem, atoms = lost[0]
    shown = " ".join(atoms[:MAX_LANDMARKS])
    return (f"every plan for problem {problem} must at some point make {shown} true, and with your action no "
            "reachable state has " + ("it" if len(atoms) == 1 else "them") + ".")


def needs_reach(result: EvaluationResult | None, check: CheckReport, solvable: Sequence[bool | None]) -> bool:
    """Does the feedback need what the answer's own domain can reach: a parsed answer in a Different domain
    (with a reference), or with some problem unsolvable (without one). Never for an answer whose problems all
    stay solvable."""
    return check.passed and check.action is not None and (
        any(s is False for s in solvable) if result is None else result.result_class is ResultClass.DIFFERENT_DOMAIN)


def explored(bundle: DomainBundle, action: str, judgement: Judgement) -> Judgement:
    """The judgement with `reach` (the answer placed in its domain and explored, once) where the feedback or the
    search's dead answers need it; unchanged otherwise."""
    if judgement.reach is not None or judgement.equivalent:
        return judgement
    result = judgement.evaluation
    if result is not None and result.error:
        return judgement
    if not needs_reach(result, judgement.check, judgement.solvable):
        return judgement
    domain = answer_domain(bundle, action, judgement.check)
    return replace(judgement, reach=reachability(domain, bundle.problems)) if domain is not None else judgement


MAX_FINDINGS = 2   # invariant findings told in words


def invariant_words(bundle: DomainBundle, action: str, check: CheckReport, findings: Sequence | None = None) -> str | None:
    """The answer's invariant findings in words (planning/invariant_findings.py): from the domain's other actions
    and its problems only, so the checks feedback may say them. `findings` None: found now (dismissals honoured)."""
    if not check.passed or check.action is None or not bundle.problems:
        return None
    if findings is None:
        from domain_drafter.drafting.judges import invariant_findings_of

        findings = invariant_findings_of(bundle, action, check)
    return " ".join(f.message + "." for f in findings[:MAX_FINDINGS]) or None


def feedback_text(bundle: DomainBundle, action: str, result: EvaluationResult | None, kind: Feedback, *,
                  check: CheckReport | None = None, solvable: Sequence[bool | None] = (),
                  reach: Sequence[Reachability] | None = None, findings: Sequence | None = None) -> str | None:
    """What the next prompt says is wrong, or None (Equivalent, an error, or nothing we may say).

    `result` None: judged without a reference (then `check` and `solvable` are what is known, and
    only the checks' feedback can be given). `reach`: what the answer's domain can reach, where the caller
    explored it already (`explored`); else it is explored here when needed.
    """
    if result is not None and (result.error or result.subclass is Subclass.EQUIVALENT):
        return None
    check = check if check is not None else (result.check if result is not None else None)
    if check is None:
        return None
    # what the answer's domain can reach: for the NoPlan words (without a reference, only when some problem has
    # no plan) and the landmarks; never explored for an answer whose problems all stay solvable
    if reach is None and needs_reach(result, check, solvable):
        domain = answer_domain(bundle, action, check)
        reach = reachability(domain, bundle.problems) if domain is not None else None
    # the most specific first: the distinguishing state (the edit it calls for), then what the answer's domain
    # cannot reach, then the landmarks it lost
    parts = []
    if result is not None and check.passed and kind in (Feedback.PLANS, Feedback.ALL):
        parts.append(_plans(result))
    parts.append(_checks(result, check, bundle, action, reach, solvable))
    parts.append(invariant_words(bundle, action, check, findings))
    if result is not None and check.passed and kind in (Feedback.LANDMARKS, Feedback.ALL):
        parts.append(_landmarks(bundle, action, check, reach))
    said = [p for p in parts if p]
    if not said:
        return None
    return " ".join(p[0].upper() + p[1:] if p[0].islower() else p for p in said)


def judgement_feedback(bundle: DomainBundle, action: str, judgement: Judgement, kind: Feedback) -> str | None:
    """What a re-prompt tells the model is wrong with a judged answer, or None (the judge found nothing wrong,
    or nothing we may say): the feedback of `kind`, then (judged without a reference) the domain's failing
    test cases in words."""
    if judgement.equivalent:
        return None
    said = feedback_text(bundle, action, judgement.evaluation, kind, check=judgement.check,
                         solvable=judgement.solvable, reach=judgement.reach,
                         findings=judgement.findings if judgement.evaluation is None else None)
    parts = [p for p in (said, *judgement.tests_words) if p]
    return " ".join(parts) if parts else None


def follow_up(prompt: str, answer: str, diagnostic: str, template: PromptTemplate) -> Conversation:
    """The next round's prompt: the conversation so far, the model's answer, and the feedback.

    In the chat format these are real turns (the answer as the assistant's, the feedback as the
    user's); in the completion format the same text continues (the template's feedback block).
    """
    turns = list(prompt.turns) if isinstance(prompt, Conversation) else [("user", str(prompt))]
    turns += [("assistant", answer.strip()), ("user", template.render_feedback(diagnostic).strip())]
    return Conversation(turns, str(prompt) + answer.rstrip() + template.render_feedback(diagnostic))
