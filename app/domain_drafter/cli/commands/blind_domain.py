"""`draft-domain --search --blind`: every action drafted blind in turn, then the whole draft compared."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from domain_drafter.cli.options import cancel_on_sigint, evaluator, open_backend, verdict_exit_code
from domain_drafter.text.verdicts import format_comparison


def draft_domain_blind_command(args: argparse.Namespace, bundle, out: Path, draft) -> int:
    from domain_drafter.core.bundle import load_bundled
    from domain_drafter.drafting.blind_domain import draft_domain_blind
    from domain_drafter.drafting.presets import Preset, preset_options

    preset = (Preset.GUIDED_SEARCH if args.guided else Preset.SEARCH) if args.search else Preset.ONE_SHOT
    search = preset_options(preset, budget=args.budget if args.search else 1)
    quiet = args.json

    def on_action(o) -> None:
        if not quiet:
            ref = o.reference.subclass.value if o.reference is not None and o.reference.subclass else "no verdict"
            print(f"  {o.name:<20} reference: {'right' if o.right else 'wrong'} ({ref}), {o.search.calls} calls; "
                  f"blind judge: {o.verdict}", flush=True)

    backend = open_backend(args)
    with backend, evaluator(args) as judge, cancel_on_sigint() as task:
        if not quiet:
            print(f"-- {backend.name}: drafting {bundle.name} blind ({len(bundle.action_names)} actions, "
                  f"{preset.value + ', budget ' + str(search.budget) if args.search else 'one call'} per action, "
                  f"{'without' if args.no_tests else 'with'} the tests)", flush=True)
        result = draft_domain_blind(bundle, backend, judge, load_bundled(), draft, search, on_action=on_action,
                                    task=task, use_tests=not args.no_tests)
    out.mkdir(parents=True, exist_ok=True)
    (out / "domain.pddl").write_text(result.candidate.to_pddl() + "\n", encoding="utf-8")
    data = {**result.to_dict(), "strategy": preset.value, "budget": search.budget,
            "tests": not args.no_tests}
    (out / "blind-draft.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if quiet:
        print(json.dumps({**data, "out": str(out)}, indent=2))
    else:
        print(format_comparison(result.comparison, bundle))
        print(f"  right (proven Equivalent): {result.right} of {len(result.outcomes)} actions; whole draft "
              f"{'proven equivalent' if result.equivalent else 'not proven equivalent'}")
        print(f"  saved: {out / 'domain.pddl'} and {out / 'blind-draft.json'}")
    return verdict_exit_code(result.comparison.verdict, result.comparison.error)
