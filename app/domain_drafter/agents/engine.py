"""The warm engine behind the MCP tools: one per server, sync and Qt-free, each tool a method.

Every method returns (structured content, short text). Domains come through `Sources`; reference plans,
reachable states and verdicts stay in one Evaluator's caches across calls (the same defaults as the
CLI: `EvaluationOptions()`), and plan validators per problem in a small dict.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

from domain_drafter.agents.errors import check_size
from domain_drafter.agents.sources import Sources
from domain_drafter.core.bundle import DomainBundle, load_bundled
from domain_drafter.core.errors import SourceLocation, UsageError
from domain_drafter.core.tasks import TaskState
from domain_drafter.planning.evaluate import Evaluator
from domain_drafter.planning.options import EquivalenceMode, EvaluationOptions

Result = tuple[dict, str]


class WarmEngine:
    """The caches every call shares. Thread-safe where the engine is; the plan validators lock their dict."""

    def __init__(self, options: EvaluationOptions | None = None) -> None:
        self.options = options or EvaluationOptions()
        self.sources = Sources()
        self.evaluator = Evaluator(self.options)
        paper = EvaluationOptions(**{**self.options.__dict__, "equivalence": EquivalenceMode.PAPER})
        self.paper = Evaluator(paper, planner=self.evaluator.planner, plan_cache=self.evaluator.plan_cache,
                               verdicts=self.evaluator.verdicts, states=self.evaluator.states,
                               search=self.evaluator.search)
        self._validators: dict[tuple, object] = {}
        self._lock = threading.Lock()
        self._state_keys: dict[int, tuple[DomainBundle, list[str]]] = {}   # id(bundle) -> (it, its state keys)

    def close(self) -> None:
        self.evaluator.close()
        self.sources.close()

    # ------------------------------------------------------------------ domains

    def bundle(self, args: Mapping) -> DomainBundle:
        return self.sources.bundle(args.get("domain"), args.get("domain_text"), args.get("problems"),
                                   args.get("descriptions_text"))

    def list_domains(self) -> Result:
        rows = [{"name": b.name, "actions": list(b.action_names), "predicates": len(b.domain.predicates),
                 "problems": [p.name for p in b.problems], "tests": b.tests_file is not None}
                for b in load_bundled()]
        text = "\n".join(f"{r['name']}: {', '.join(r['actions'])}" for r in rows)
        return {"domains": rows}, f"{len(rows)} bundled domains\n{text}"

    def describe_domain(self, args: Mapping) -> Result:
        b = self.bundle(args)
        d = b.descriptions
        predicates = [{"name": p.name, "parameters": [f"{x.name} - {x.type}" for x in p.parameters],
                       "text": _template(d.predicates.get(p.name)) if d else None} for p in b.domain.predicates]
        actions = [{"name": a.name, "parameters": [f"{x.name} - {x.type}" for x in a.parameters],
                    "description": d.actions.get(a.name) if d else None, "pddl": a.to_pddl(indent="")}
                   for a in b.domain.actions]
        out = {"name": b.name, "folder": self._shown(b.folder), "summary": d.summary if d else None,
               "types": [str(t) for t in getattr(b.domain.types, "names", ())],
               "predicates": predicates, "actions": actions, "problems": [p.name for p in b.problems],
               "tests": b.tests_file is not None}
        text = (f"{b.name}: {len(predicates)} predicates, {len(actions)} actions ({', '.join(b.action_names)}), "
                f"{len(b.problems)} problems" + (", tests.toml" if out["tests"] else ""))
        return out, text

    # ------------------------------------------------------------------ answers

    def check_action(self, args: Mapping) -> Result:
        from domain_drafter.core.answers import check_answer
        from domain_drafter.core.are import action_reconstruction_error
        from domain_drafter.text.verdicts import format_check

        b = self.bundle(args)
        action = b.require_action(args["action"])
        answer = _answer(args)
        report = check_answer(answer, b.domain, action)
        are = action_reconstruction_error(b.domain.action(action), report.action) if report.action else None
        out = report.to_dict()
        _locate_findings(out, answer)
        out["are"] = are.to_dict() if are else None
        return out, format_check(report, are)

    def evaluate_action(self, args: Mapping, task: TaskState | None = None) -> Result:
        from domain_drafter.text.verdicts import format_evaluation

        b = self.bundle(args)
        mode = EquivalenceMode(args.get("equivalence") or self.options.equivalence.value)
        judge = self.paper if mode is EquivalenceMode.PAPER else self.evaluator
        answer = _answer(args)
        result = judge.evaluate(b, args["action"], answer, task=task)
        out = result.to_dict()
        out.pop("answer", None)   # the caller sent it
        _locate_findings(out, answer)
        cx = getattr(result.proof, "counterexample", None) if result.proof else None
        out["counterexample_problem"] = getattr(cx, "problem_pddl", None) if cx is not None else None
        return out, format_evaluation(result)

    def explored(self, args: Mapping) -> bool:
        """Whether the reference's reachable states of every problem of the domain are in memory: a proven
        evaluate_action then plans and explores nothing of the reference."""
        from domain_drafter.planning.state_cache import StateCache

        b = self.bundle(args)
        with self._lock:
            kept = self._state_keys.get(id(b))
        if kept is None or kept[0] is not b:
            reference = b.domain.to_pddl()
            kept = (b, [StateCache.key(reference, p.text) for p in b.problems])
            with self._lock:
                if len(self._state_keys) >= 64:
                    self._state_keys.clear()
                self._state_keys[id(b)] = kept
        return bool(kept[1]) and all(self.evaluator.states.in_memory(k) for k in kept[1])

    def prompt(self, args: Mapping) -> Result:
        from domain_drafter.core.descriptions import DescriptionClass
        from domain_drafter.core.prompt import build_prompt
        from domain_drafter.drafting.options import DraftOptions

        b = self.bundle(args)
        d = DraftOptions()
        cls = DescriptionClass.parse(args.get("description_class") or d.description_class.value)
        seed = d.seed if args.get("seed") is None else args["seed"]
        examples = d.examples if args.get("examples") is None else args["examples"]
        p = build_prompt(b, b.require_action(args["action"]), load_bundled(), cls, seed, examples, None)
        return p.to_dict(), p.text

    # ------------------------------------------------------------------ tests and whole domains

    def run_tests(self, args: Mapping, task: TaskState | None = None) -> Result:
        from domain_drafter.core.tests_reader import load_tests, parse_tests
        from domain_drafter.planning.domain_tests import run_tests
        from domain_drafter.text.domain_tests import format_quick_fix, format_tests_report

        b = self.bundle(args)
        tests_text = args.get("tests_text")
        check_size("tests_text", tests_text)
        if tests_text is not None:
            tests = parse_tests(tests_text, b.domain, b.problems, path=Path("tests.toml"))
        else:
            tests = load_tests(b)
        cases = args.get("cases")
        if cases:
            unknown = [n for n in cases if n not in tests.names]
            if unknown:
                raise UsageError(f"no case '{unknown[0]}' in the tests", hint="cases: " + ", ".join(tests.names))
            tests = tests.select(cases)
        report = run_tests(b.domain, tests, domain_text=b.domain_text, states=self.evaluator.states, task=task)
        out = report.to_dict()
        text = format_tests_report(report, "tests.toml" if tests_text is not None else self._shown(tests.path))
        if args.get("fix") and report.failed:
            from domain_drafter.planning.quick_fixes import quick_fixes

            search = quick_fixes(b.domain, tests, report=report, task=task)
            out["quick_fixes"] = search.to_dict()
            text += "".join("\n" + format_quick_fix(n, f) for n, f in enumerate(search.fixes, start=1))
        return out, text

    def compare_domains(self, args: Mapping, task: TaskState | None = None) -> Result:
        from domain_drafter.text.verdicts import format_comparison

        reference = self.bundle(args)
        candidate_text = args.get("candidate_text")
        candidate = args.get("candidate")
        if (candidate_text is None) == (candidate is None):
            raise UsageError("give one of 'candidate' (a folder or domain.pddl) or 'candidate_text'")
        if candidate_text is not None:
            cand = self.sources.bundle(domain_text=candidate_text).domain
        else:
            cand = self.sources.bundle(candidate).domain
        comparison = self.evaluator.compare(reference, cand, task=task)
        return comparison.to_dict(), format_comparison(comparison, reference)

    def _shown(self, path: Path | None) -> str | None:
        if path is None:
            return None
        for root, name in self.sources.rename.items():
            if path == root or path.is_relative_to(root):
                return name
        return str(path)


def _answer(args: Mapping) -> str:
    answer = args.get("answer")
    if answer is None:
        raise UsageError("no 'answer' given", hint="pass the PDDL of one action, '(:action NAME ...)'")
    check_size("answer", answer)
    return answer


def _template(text) -> str | None:
    if text is None:
        return None
    return getattr(text, "text", None) or str(text)


def _locate_findings(out: dict, answer: str) -> None:
    """Each finding's span also as line:column of the answer, as the CLI prints them."""
    for finding in out.get("findings") or ():
        loc = SourceLocation.from_offset(answer, finding["span"][0])
        finding["line"], finding["column"] = loc.line, loc.column
