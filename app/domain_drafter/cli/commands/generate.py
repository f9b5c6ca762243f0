"""`generate`: ask a model for one action, stream its answer, then judge it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from domain_drafter.cli.options import (
    add_draft_options,
    add_model_options,
    add_planner_options,
    add_target,
    cancel_on_sigint,
    evaluator,
    open_backend,
    verdict_exit_code,
)
from domain_drafter.text.verdicts import format_evaluation


def cmd_generate(args: argparse.Namespace) -> int:
    from domain_drafter.core.bundle import load_bundle, load_bundled
    from domain_drafter.core.descriptions import DescriptionClass
    from domain_drafter.core.prompt import load_template
    from domain_drafter.drafting.loop import DraftOptions, Feedback, draft_action
    from domain_drafter.llm.backend import DecodingOptions

    bundle = load_bundle(args.domain)
    action = bundle.require_action(args.action)
    bundle.require_descriptions()
    template = load_template(Path(args.template)) if args.template else None
    options = DraftOptions(
        description_class=DescriptionClass.parse(args.description_class), seed=args.seed, examples=args.examples,
        decoding=DecodingOptions(max_tokens=args.max_tokens, seed=args.seed, speculate=args.speculate),
        grammar=args.grammar,
        lock_signature=not args.free_signature, retries=args.retries,
        feedback=Feedback(args.feedback or ("all" if args.search else "checks")))
    if args.blind and not args.search:      # a blind one-shot: one model call, judged blind
        args.search, args.budget, args.width = True, 1, 1
    if args.search:
        from domain_drafter.drafting.presets import Preset, preset_options

        search = preset_options(Preset.GUIDED_SEARCH if args.guided else Preset.SEARCH, budget=args.budget,
                                width=args.width, children=args.children, feedback=options.feedback,
                                temperature=args.temperature, repair=not args.no_repair,
                                batch_children=args.batch_children, speculate_children=args.speculate_children)
        backend = open_backend(args)
        return _generate_search(args, bundle, action, backend, options, search, template)
    backend = open_backend(args)
    if args.candidates is not None:
        return _generate_candidates(args, bundle, action, backend, options, template)
    streaming = not args.json

    def on_token(piece: str) -> None:
        if streaming:
            sys.stdout.write(piece)
            sys.stdout.flush()

    def on_round(round_) -> None:
        if streaming:
            print("\n" + format_evaluation(round_.evaluation))
            if round_.diagnostic:
                print(f"\n-- corrective round: told the model: {round_.diagnostic}\n")

    with backend, evaluator(args) as judge, cancel_on_sigint() as task:
        if args.show_prompt and streaming:
            from domain_drafter.core.prompt import build_prompt
            print(build_prompt(bundle, action, load_bundled(), options.description_class, options.seed,
                               options.examples, template).text, end="")
        elif streaming:
            fmt = getattr(backend, "prompt_format", "completion")
            print(f"-- {backend.name}: {bundle.name}/{action} ({options.description_class.value}, seed {args.seed}"
                  f"{', grammar' if args.grammar else ''}{', chat format' if fmt == 'chat' else ''})")
        draft = draft_action(bundle, action, backend, judge, load_bundled(), options, template=template,
                             on_token=on_token, on_round=on_round, task=task)
    if args.json:
        print(json.dumps({**draft.to_dict(), "prompt_format": getattr(backend, "prompt_format", "completion")},
                         indent=2))
    return verdict_exit_code(draft.final.subclass, draft.final.error)


def _generate_candidates(args: argparse.Namespace, bundle, action: str, backend, options, template) -> int:
    """--candidates N [--sample]: N answers in one batch, each judged as it comes, then the ranking and the best."""
    from domain_drafter.core.bundle import load_bundled
    from domain_drafter.drafting.candidates import Candidate, draft_candidates

    streaming = not args.json
    how = (f"sampled at temperature {args.temperature} from one prompt, decoding seeds" if args.sample
           else "greedy, prompt seeds")
    seeds = f"{options.seed}..{options.seed + args.candidates - 1}"

    def on_candidate(c: Candidate) -> None:
        if streaming:
            print(f"-- candidate {c.index + 1} (seed {c.seed}, {c.stats.generated_tokens} tokens): "
                  f"{c.verdict}: {c.message}", flush=True)

    with backend, evaluator(args) as judge, cancel_on_sigint() as task:
        if streaming:
            print(f"-- {backend.name}: {args.candidates} candidates for {bundle.name}/{action} ({how} {seeds}"
                  f"{', grammar' if args.grammar else ''})", flush=True)
            if args.retries:
                print("-- note: --retries is not used with --candidates (each candidate is one answer)")
        ranked = draft_candidates(bundle, action, backend, judge, load_bundled(), options, args.candidates,
                                  sampled=args.sample, temperature=args.temperature, template=template,
                                  on_candidate=on_candidate, task=task)
    if args.json:
        print(json.dumps([c.to_dict() for c in ranked], indent=2))
    else:
        print("\nranked, best first:")
        for c in ranked:
            are = (f"  ARE {c.evaluation.are.total}" if c.evaluation is not None and c.evaluation.are is not None
                   else "")
            agree = f"  {c.agreement} agree" if c.agreement > 1 else ""
            print(f"  #{c.rank}  candidate {c.index + 1}  seed {c.seed}  {c.verdict}{are}{agree}")
        print(f"\nbest (candidate {ranked[0].index + 1}):\n{ranked[0].answer.strip()}")
    best = ranked[0]
    if best.evaluation is None:
        return 0 if best.passed_checks else 1
    return verdict_exit_code(best.evaluation.subclass, best.evaluation.error)


def _generate_search(args: argparse.Namespace, bundle, action: str, backend, options, search, template) -> int:
    """--search: best-first over answers and their feedback until one is proven Equivalent or the budget is spent."""
    from domain_drafter.core.bundle import load_bundled
    from domain_drafter.drafting.records import SearchNode, Stopped
    from domain_drafter.drafting.search import search_action

    streaming = not args.json

    def on_node(n: SearchNode) -> None:
        if streaming:
            where = "root" if n.parent is None else f"child of #{n.parent + 1}"
            if n.repair_of is not None:
                where = f"quick fix of #{n.repair_of + 1} ({'; '.join(n.repairs)})"
            same = f" (same as #{n.duplicate_of + 1})" if n.duplicate_of is not None else ""
            are = f", ARE {n.to_dict()['are']}" if n.to_dict()["are"] is not None else ""
            print(f"-- call {n.call}/{search.budget} #{n.id + 1} {where}, seed {n.seed}: {n.judgement.verdict}, "
                  f"score {n.score:.1%}{are}{same}", flush=True)

    with backend, evaluator(args) as judge, cancel_on_sigint() as task:
        searched, blind_judge = bundle, None
        if args.blind:              # the reference hidden from the judge and the feedback (drafting/blind.py)
            from domain_drafter.drafting.blind import blind_setup

            setup = blind_setup(bundle, action, judge, search, task)
            searched, blind_judge, search = setup.bundle, setup.judge, setup.options
        if streaming:
            print(f"-- {backend.name}: {'blind ' if args.blind else ''}search for {bundle.name}/{action}: "
                  f"budget {search.budget} model calls, "
                  f"{search.width} roots, {search.children} children per expansion, feedback "
                  f"{search.feedback.label}{', grammar' if args.grammar else ''}", flush=True)
        result = search_action(searched, action, backend, judge, load_bundled(), options, search, template=template,
                               judge=blind_judge, on_node=on_node, task=task)
        best = result.best
        reference = None
        if args.blind and best is not None:      # for the report only: it never steered the search
            from domain_drafter.drafting.blind import reference_verdict

            reference = reference_verdict(bundle, action, best.answer, judge, task).evaluation
    if args.json:
        print(json.dumps({**result.to_dict(), "best_answer": best.answer if best else None,
                          "best_evaluation": best.judgement.evaluation.to_dict()
                          if best and best.judgement.evaluation else None,
                          **({"blind": True, "blind_accepted": bool(best and best.judgement.equivalent),
                              "reference_verdict": reference.to_dict() if reference else None}
                             if args.blind else {})}, indent=2))
    elif best is not None:
        print(f"\nstopped: {result.stopped.value}{': ' + result.error if result.error else ''}; {result.calls} model calls, "
              f"{result.generated_tokens} tokens generated, {result.wall_s:.0f} s")
        print(f"best (#{best.id + 1}, call {best.call}): {best.judgement.verdict}, score {best.score:.1%}")
        if best.judgement.evaluation is not None:
            print(format_evaluation(best.judgement.evaluation))
        print(best.answer.strip())
        if reference is not None:
            from domain_drafter.drafting.blind import acceptance_words

            print(f"\nblind judge: {acceptance_words(best.judgement)}")
            print("reference verdict (for the report only; the search never saw it):")
            print(format_evaluation(reference))
    if best is None:
        print(f"error: the search wrote no answer: {result.error or result.stopped.value}", file=sys.stderr)
        return 1
    if result.stopped is Stopped.ERROR:
        return 1
    ev = best.judgement.evaluation
    if ev is None:
        return 0 if best.judgement.check.passed else 1
    return verdict_exit_code(ev.subclass, ev.error)


def register(sub: argparse._SubParsersAction) -> None:
    from domain_drafter.drafting.options import DraftOptions, Feedback
    from domain_drafter.llm.backend import DecodingOptions

    draft, decoding = DraftOptions(), DecodingOptions()
    p = sub.add_parser("generate", help="ask a model for one action, stream its answer, then evaluate it")
    add_target(p, "bundled domain name, or a folder with domain.pddl, problems/ and descriptions.toml", answer=False)
    add_model_options(p, seed_help=f"seed for the examples and descriptions (default {draft.seed})")
    add_draft_options(p)
    p.add_argument("--examples", type=int, default=draft.examples,
                   help=f"context examples in the prompt (default {draft.examples})")
    p.add_argument("--max-tokens", type=int, default=decoding.max_tokens,
                   help=f"new tokens at most (paper: {decoding.max_tokens})")
    p.add_argument("--free-signature", action="store_true",
                   help="with --grammar: let the model choose parameters (may yield semantic errors)")
    p.add_argument("--feedback", choices=[f.value for f in Feedback], default=None,
                   help="what corrective rounds and the search's expansions say (default: checks for --retries, "
                        "all for --search): " + Feedback.help())
    p.add_argument("--show-prompt", action="store_true", help="print the prompt before the answer")
    p.add_argument("--template", help="a prompt template .toml (default: the paper's)")
    add_planner_options(p)
    from domain_drafter.drafting.candidate_options import MAX_CANDIDATES, CandidateOptions

    candidates = CandidateOptions()
    p.add_argument("--candidates", type=int, metavar="N", choices=range(1, MAX_CANDIDATES + 1),
                   help=f"draft N answers in one batch (1..{MAX_CANDIDATES}; Settings' default {candidates.n}), "
                        "judge each and print them ranked: greedy, one per prompt seed seed..seed+N-1")
    p.add_argument("--sample", action="store_true",
                   help="with --candidates: sample the N answers from one prompt (decoding seeds seed..seed+N-1)")
    p.add_argument("--temperature", type=float, default=candidates.temperature,
                   help=f"with --sample or --search: the sampling temperature (default {candidates.temperature})")
    from domain_drafter.drafting.options import SearchOptions

    so = SearchOptions()
    p.add_argument("--search", action="store_true",
                   help="search in feedback space: best-first over answers, each expanded with its own feedback, "
                        "until one is proven Equivalent or the budget is spent")
    p.add_argument("--budget", type=int, default=so.budget, metavar="CALLS",
                   help=f"with --search: model calls at most (default {so.budget})")
    p.add_argument("--width", type=int, default=so.width, metavar="N",
                   help=f"with --search: root answers, one per prompt seed (default {so.width})")
    p.add_argument("--children", type=int, default=so.children, metavar="M",
                   help=f"with --search: answers sampled per expansion (default {so.children})")
    p.add_argument("--no-repair", action="store_true",
                   help="with --search: do not judge the quick fix of an answer that fails the checks (what the "
                        "checks refuse taken out, from the domain's declarations; it costs no model call)")
    p.add_argument("--batch-children", action="store_true",
                   help="with --search, a local model: an expansion's children written together in one batch")
    p.add_argument("--speculate-children", action="store_true",
                   help="with --search, a local model: the sampled children decode with speculation from the "
                        "prompt, the greedy roots without (--speculate: every call)")
    p.add_argument("--guided", action="store_true",
                   help="with --search: no call may write an answer judged before; with --grammar too, a child "
                        "may not write a literal its parent's feedback told it to take out (the distinguishing "
                        "state's; uses the reference: feedback plans or all)")
    p.add_argument("--blind", action="store_true",
                   help="judge as if the action had no reference: its body hidden, the checks, the problems, the "
                        "invariants and the domain's tests decide, checks feedback only (with --search; alone: one "
                        "call); the reference's verdict on the answer is printed after, for the report only")
    p.add_argument("--json", action="store_true", help="print all rounds (or the ranked candidates) as JSON "
                                                       "instead of streaming")
    p.set_defaults(func=cmd_generate)
