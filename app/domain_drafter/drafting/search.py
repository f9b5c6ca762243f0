"""Search in feedback space: best-first over judged answers, until one is proven Equivalent.

The roots are `width` answers, one per prompt seed (seed, seed+1, ...), decoded with the draft's
decoding, so the first root is the one-shot answer. Expanding a node re-prompts with its answer and
its feedback (`drafting/feedback.py`: chat turns, or the template's feedback block); its `children`
are sampled (each with its own decoding seed) after the root prompts in turn (`rotate`). The frontier
is ordered by the judgement's key, with `dead` answers (Different domain, action applies in no
reachable state: `never_applies`) after the live ones of their class. A node is expanded again after
the nodes as good as it, hotter each time (`reheat`); a node whose expansion wrote only repeats rests
until the others had a turn. Guided (`drafting/presets.guided_flags`): `forbid_removed` forbids a child
the literals its parent was told to take out, `refuse_judged` refuses any answer judged before.
Answers equal up to renaming and order are merged: judged once, never expanded twice. With `repair`,
a check-failing answer's quick fix (core/answer_repair.py) is judged as a node of its own (no model
call), and so is, for an answer that passes the checks but has an invariant finding whose fix is an edit
(the blind judge's: "add (not (at ?obj ?room)) to the effect"), the answer with that edit made, and for an
answer that fails the domain's tests (the judge without a reference runs them), the answer with the smallest
edits after which every case passes (planning/quick_fixes.py: one atom added or removed, or two); a call that
repeats itself is ended at the third copy. With an `AgreementJudge` (the blind judge
without tests, drafting/blind.py) an answer it accepts still waits: it is accepted once an answer of another
root's lineage passes too and is the same answer or proven equivalent to it (`agreed`).

The presets that are not searches (drafting/presets.py) shape the same loop: `conversation` continues
one conversation round after round (Generate's and New action's rounds; `failing_tests_only`: while the
domain's tests fail), `batch` writes the roots together (`write_batch`) and judges every one (Draft N),
`sample_roots` samples them from one prompt, `merge` False judges every answer, `raises` raises a cancel
or a model failure instead of keeping it in the result.

It stops (`Stopped`) at the first proven Equivalent, when a budget (calls, tokens, seconds) is spent,
when nothing is left to expand, on cancel, or when the model fails; the result always holds the whole
tree. Deterministic for a seed. The measurements behind these choices: resources/results/
search-design-notes.md.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from domain_drafter.core.answer_repair import Repair, repair_answer
from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.domain_tests import DomainTests
from domain_drafter.core.errors import DrafterError, ModelError, UsageError
from domain_drafter.core.model import canonical_action
from domain_drafter.core.prompt import Prompt, PromptTemplate, build_prompt, load_template
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.core.tests_files import domain_tests_of
from domain_drafter.drafting.feedback import ISSUES_SHOWN, explored, follow_up, judgement_feedback
from domain_drafter.drafting.judges import (
    AGREEMENT_PEERS,
    AgreementJudge,
    Judge,
    Judgement,
    checks_judge,
    has_reference,
    reference_judge,
)
from domain_drafter.drafting.nogoods import from_failed_tests, unreachable_preconditions
from domain_drafter.drafting.options import DraftOptions, Feedback, SearchOptions
from domain_drafter.drafting.records import SearchNode, SearchResult, Stopped
from domain_drafter.llm.backend import (
    GUIDED_NEEDS_LOGITS,
    DecodingOptions,
    Generation,
    GenerationBackend,
    GenerationStats,
    steers_tokens,
)
from domain_drafter.llm.grammar import ActionGrammar
from domain_drafter.planning.evaluate import Evaluator
from domain_drafter.planning.invariant_findings import edited_by_findings, invariants_without
from domain_drafter.planning.invariants import exclusive_preconditions, unbalanced_deletes
from domain_drafter.planning.quick_fixes import quick_fixes

_GENERIC = "it does not do what the description says; reconsider its preconditions and effects"


def never_applies(bundle: DomainBundle, action: str, judgement: Judgement) -> bool:
    """A Different-domain answer (no plan, or a plan of the reference it cannot follow) whose action applies in no
    reachable state of any of the domain's problems, by an exploration of the answer's own domain (no reference).
    False where that is not known (an exploration cut short says nothing)."""
    if judgement.subclass not in (Subclass.NO_PLAN, Subclass.NP_APP) or not bundle.problems:
        return False
    reach = explored(bundle, action, judgement).reach      # these classes come after a parsed answer
    return reach is not None and all(any(b.action == action for b in r.blocked) for r in reach)


def _finding_fix(judgement: Judgement) -> Repair | None:
    """The answer with the edit its first invariant finding says made (no reference: planning/invariant_findings)."""
    edited = edited_by_findings(judgement.check.action, judgement.findings)
    return Repair(*edited) if edited is not None else None


TESTS_FIX_TIME_S = 3.0   # seconds the tests' quick fix may look for one or two edits of a failing answer


def _tests_fix(bundle: DomainBundle, action: str, judgement: Judgement, tests: DomainTests | None,
               task: TaskState) -> Repair | None:
    """The answer with the smallest edits (one atom added or removed, or two) after which every case of the
    domain's tests passes (planning/quick_fixes.py), for an answer the judge ran the tests on and some failed;
    None where no such edit is found within TESTS_FIX_TIME_S. The tests are the judge's own: no reference."""
    schema = judgement.check.action
    if tests is None or schema is None or not judgement.fails_tests:
        return None
    domain = bundle.domain.with_action(schema, replacing=action)
    found = quick_fixes(domain, tests, actions=[schema.name], limit=1, time_limit_s=TESTS_FIX_TIME_S, task=task)
    if not found.fixes:
        return None
    fix = found.fixes[0]
    return Repair(fix.domain.action_map[schema.name], tuple(f"{edit} (tests)" for edit in fix.edits))


def draft_decoding(bundle: DomainBundle, action: str, options: DraftOptions) -> DecodingOptions:
    """The options' decoding, with the action's grammar when the options ask for it, and then the pairs of
    precondition literals the domain's other actions never make true together (from their invariants, proven on
    the domain's problems) and the precondition literals they never make true at all (drafting/nogoods.py): an
    answer holding those could never apply. The effect may not delete an atom of an exactly-one group that no add
    it could write refills (planning/invariants.unbalanced_deletes)."""
    decoding = options.decoding
    if options.grammar:
        grammar = ActionGrammar(bundle.domain, action, lock_signature=options.lock_signature)
        decoding = grammar.decoding(decoding)
        if decoding.literals is not None and bundle.problems:
            keeper = invariants_without(bundle.domain, tuple(p.problem for p in bundle.problems), action)
            never = unreachable_preconditions(bundle, action, decoding.literals[0])
            emptying = unbalanced_deletes(keeper, decoding.literals[1])
            decoding = replace(decoding, exclusive=exclusive_preconditions(keeper, decoding.literals[0]) or None,
                               forbidden=_union(decoding.forbidden, (never, emptying)))
    return decoding


def _union(*forbidden: tuple[tuple[str, ...], tuple[str, ...]] | None) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The literals each section may not hold, of all of `forbidden` (None: none)."""
    out = tuple(tuple(dict.fromkeys(lit for f in forbidden if f for lit in f[section])) for section in (0, 1))
    return out if any(out) else None


def _decoding_seed(seed: int, node: int, child: int) -> int:
    """A decoding seed that depends only on the search's seed and the place in the tree."""
    return (seed * 1_000_003 + node * 1_009 + child * 7 + 1) % (2**31 - 1)


def write_batch(backend: GenerationBackend, prompts: Sequence[str], decodings: Sequence[DecodingOptions],
                sampled: bool, task: TaskState) -> list[Generation]:
    """One answer per (prompt, decoding), written together where the backend can: sampled from one prompt
    (`generate_candidates`, the prompt read once), else in one batch (`generate_batch`); one at a time else."""
    n = len(decodings)
    limit = n * max(d.max_tokens for d in decodings)
    written = [0]

    def on_token(_index: int, _piece: str) -> None:
        written[0] += 1
        if written[0] % 8 == 0:
            task.report(min(written[0], limit), limit, f"writing {n} candidates: {written[0]} tokens")

    task.report(0, limit, f"writing {n} candidates")
    if sampled and hasattr(backend, "generate_candidates"):
        return list(backend.generate_candidates(prompts[0], n, list(decodings), task=task, on_token=on_token))
    if not sampled and hasattr(backend, "generate_batch"):
        return list(backend.generate_batch(list(prompts), list(decodings), task=task, on_token=on_token))
    out = []
    for j, decoding in enumerate(decodings):
        task.check_cancelled()
        task.report(j, n, f"writing candidate {j + 1} of {n}")
        out.append(backend.generate(prompts[j], decoding, task=task))
    return out


def search_action(bundle: DomainBundle, action: str, backend: GenerationBackend, evaluator: Evaluator | None,
                  pool: Sequence[DomainBundle], draft: DraftOptions = DraftOptions(),
                  options: SearchOptions = SearchOptions(), *, template: PromptTemplate | None = None,
                  prompt: Prompt | None = None, judge: Judge | None = None, reference: bool | None = None,
                  on_node: Callable[[SearchNode], None] | None = None,
                  on_call: Callable[[int, str], None] | None = None, on_token: Callable[[str], None] | None = None,
                  task: TaskState | None = None) -> SearchResult:
    """Search for an answer to `action` that the judge proves right (see the module's docstring).

    `judge` None: the proof against the bundle's action where it has one (`has_reference`), else the
    checks and the problems (`evaluator` may be None only where `judge` is given). `prompt`: the root prompt,
    where the caller built it (width 1; else built from `pool` and `draft`). `on_node` fires for each answer as
    it is judged, `on_call(index, prompt)` before each model call and `on_token` for each piece it writes. Never
    raises on a model failure or a cancel once started (but with `options.raises`): the result says why it
    stopped and keeps the tree.
    """
    task = task or TaskState()
    if (options.forbid_removed or options.refuse_judged) and not steers_tokens(backend):
        raise UsageError(f"a guided search needs the model loaded in this process, and {backend.name} is served: "
                         + GUIDED_NEEDS_LOGITS,
                         hint="use the plain search (leave out --guided; turn Guided off in the Settings; the "
                              "'search' strategy), or load the model's GGUF file here")
    template = template or load_template()
    action = bundle.require_action(action)
    if judge is None:
        reference = has_reference(bundle, action) if reference is None else reference
        judge = (reference_judge if reference else checks_judge)(bundle, action, evaluator, task)
    decoding = draft_decoding(bundle, action, draft)
    if options.repair:      # an answer looping until the token limit is cut at its third copy; the quick fix closes it
        decoding = replace(decoding, stop_loops=True)
    grammar = decoding.grammar if draft.grammar else None
    if prompt is not None:
        prompts = [prompt]
    else:
        seeds = [draft.seed] if options.sample_roots else [draft.seed + j for j in range(options.width)]
        prompts = [build_prompt(bundle, action, pool, draft.description_class, s, draft.examples, template)
                   for s in seeds]
    started = time.perf_counter()
    nodes: list[SearchNode] = []
    seen: dict[str, int] = {}           # merge key -> the node judged first
    tried: list[tuple[str, int]] = []   # refuse_judged: the answers judged (not merged), with their node
    frontier: list[tuple[tuple, int, int]] = []   # (SearchNode.frontier_key, expansions, node id)
    resting: list[tuple[tuple, int, int]] = []    # nodes whose last expansion wrote nothing new: until the others had a turn
    spent = {"generated": 0, "prompt": 0, "calls": 0}
    asked: dict[int, str] = {}          # conversation: node id -> the prompt it was written after
    judge_s = [0.0]
    learned: dict[str, None] = {}       # forbid_learned: precondition literals no acceptable answer holds
    lineage: dict[int, int] = {}        # node id -> the root its answer descends from (a repair: its answer's)
    awaiting: list[int] = []            # agreement: the nodes that pass but wait for an independent peer
    tests_read: dict[str, DomainTests | None] = {}   # the domain's tests, once an answer failed them

    def finish(stopped: Stopped, error: str | None = None) -> SearchResult:
        return SearchResult(prompts[0], options, tuple(nodes), stopped, spent["calls"], spent["generated"],
                            spent["prompt"], time.perf_counter() - started, error, grammar,
                            {"judge_s": judge_s[0]})

    def out_of_budget() -> Stopped | None:
        if spent["calls"] >= options.budget:
            return Stopped.BUDGET
        if options.max_tokens is not None and spent["generated"] >= options.max_tokens:
            return Stopped.TOKENS
        if options.time_limit_s is not None and time.perf_counter() - started >= options.time_limit_s:
            return Stopped.TIME
        return None

    def ask(prompt: str, decoding_: DecodingOptions, parent: SearchNode | None, seed: int) -> SearchNode:
        task.check_cancelled()
        shown = f"; best score so far {max(n.score for n in nodes):.0%}" if nodes else ""
        task.report(spent["calls"], options.budget, f"round {spent['calls'] + 1}: generating" if options.conversation
                    else f"model call {spent['calls'] + 1} of {options.budget}{shown}")
        if on_call is not None:
            on_call(spent["calls"], prompt)
        generation: Generation = backend.generate(prompt, decoding_, on_token=on_token, task=task)
        if generation.stats.stop_reason == "cancelled":
            raise Cancelled()
        return answered(prompt, generation, decoding_, parent, seed)

    def ask_batch(roots: list[tuple[str, DecodingOptions, int]]) -> list[SearchNode]:
        """The roots written together (`write_batch`), then each judged in turn."""
        task.check_cancelled()
        for j, (text, _, _) in enumerate(roots):
            if on_call is not None:
                on_call(j, text)
        generations = write_batch(backend, [r[0] for r in roots], [r[1] for r in roots], options.sample_roots, task)
        if any(g.stats.stop_reason == "cancelled" for g in generations):
            raise Cancelled()
        out, n = [], len(roots)
        for j, (generation, (text, decoding_, seed)) in enumerate(zip(generations, roots)):
            task.check_cancelled()
            task.report(j, n, f"judging candidate {j + 1} of {n}")
            out.append(answered(text, generation, decoding_, None, seed))
        task.report(n, n, f"{n} candidates judged")
        return out

    def answered(prompt: str, generation: Generation, decoding_: DecodingOptions, parent: SearchNode | None,
                 seed: int) -> SearchNode:
        """A written answer counted and judged, and with `repair` its quick fix too."""
        spent["calls"] += 1
        spent["generated"] += generation.stats.generated_tokens
        spent["prompt"] += generation.stats.prompt_tokens
        node = judged(generation.text, generation.stats, decoding_, parent, seed)
        asked[node.id] = prompt
        if options.repair and node.duplicate_of is None and not node.judgement.equivalent:
            revises = parent.judgement.check.action if parent is not None else None
            fix = repair_answer(node.judgement.check, bundle.domain, revises=revises)
            if fix is None and node.judgement.findings and node.judgement.check.action is not None:
                fix = _finding_fix(node.judgement)     # the blind judge's invariant findings, where they say an edit
            if fix is None and node.judgement.fails_tests:
                fix = _tests_fix(bundle, action, node.judgement, tests_of(), task)   # the judge's failing tests
            if fix is not None:
                no_call = GenerationStats(0, 0, 0.0, 0.0, 0.0, "quick-fix")   # written by the repair, not the model
                fixed = judged(fix.text, no_call, decoding_, parent, seed, node.id, fix.edits)
                if fixed.judgement.equivalent:
                    return fixed
        return node

    def tests_of() -> DomainTests | None:
        """The domain's tests, read once (for `_tests_fix`: only an answer the judge ran them on asks)."""
        if "tests" not in tests_read:
            tests_read["tests"] = domain_tests_of(bundle)
        return tests_read["tests"]

    def judged(key_text: str, stats: GenerationStats, decoding_: DecodingOptions, parent: SearchNode | None, seed: int,
               repair_of: int | None = None, repairs: tuple[str, ...] = ()) -> SearchNode:
        t0 = time.perf_counter()
        node_id = len(nodes)
        merged = None
        quick = check_answer(key_text, bundle.domain, action)
        merge = canonical_action(quick.action) if quick.action is not None else " ".join(key_text.split())
        if merge in seen and options.merge:
            merged = seen[merge]
            judgement = nodes[merged].judgement
            said = nodes[merged].feedback
            dead = nodes[merged].dead
        else:
            judgement = explored(bundle, action, judge(key_text, quick))   # parsed once, explored once
            said = None if judgement.equivalent or (options.failing_tests_only and not judgement.fails_tests) else (
                judgement_feedback(bundle, action, judgement, options.feedback)
                or (None if options.conversation else _GENERIC))
            dead = never_applies(bundle, action, judgement)
        lineage[node_id] = (lineage[repair_of] if repair_of is not None
                            else lineage[parent.id] if parent is not None else node_id)
        if judgement.agreed_with == "" and isinstance(judge, AgreementJudge):
            judgement = agreed(judge, key_text, judgement, lineage[node_id], merged)
            if judgement.agreed_with == "" and merged is None:
                awaiting.append(node_id)
        if options.forbid_learned and merged is None and decoding.literals is not None:
            learned.update(dict.fromkeys(from_failed_tests(bundle, action, judgement.test_failures,
                                                           decoding.literals[0])))
        judge_s[0] += time.perf_counter() - t0
        node = SearchNode(node_id, parent.id if parent is not None else None,
                          parent.depth + 1 if parent is not None else 0, spent["calls"], seed, decoding_.seed,
                          key_text, stats, judgement, said, merged, repair_of, repairs, decoding_.temperature, dead)
        nodes.append(node)
        if merged is None:
            seen[merge] = node_id
            tried.append((key_text, node_id))
            heapq.heappush(frontier, (node.frontier_key, 0, node_id))
        if on_node is not None:
            on_node(node)
        return node

    def agreed(agreeing: AgreementJudge, text: str, judgement: Judgement, root: int, merged: int | None) -> Judgement:
        """The judgement agreed with the newest answer awaiting agreement from another root's lineage that is
        the same answer (`merged`) or proven equivalent to it, and that answer's node agreed with it too; else
        still awaiting."""
        for peer in reversed([i for i in awaiting if lineage[i] != root][-AGREEMENT_PEERS:]):
            other = nodes[peer]
            if peer == merged or agreeing.agrees(other.judgement.check, text, judgement.check):
                # both are accepted now (the peer is the answer a merged repeat stands for: the result's best)
                nodes[peer] = replace(other, judgement=replace(other.judgement, agreed_with=text))
                awaiting.remove(peer)
                return replace(judgement, agreed_with=other.answer)
        return judgement

    def ask_children(parent: SearchNode, node_id: int, expansions: int, own: int) -> list[SearchNode]:
        """`batch_children`: the expansion's children (as many as the budget allows) written together, then each
        judged in turn; stops judging at the first proven Equivalent (the calls after it are spent all the same)."""
        n = min(options.children, options.budget - spent["calls"])
        if n < 1:
            return []
        asks = [child_call(parent, node_id, expansions, own, c, 0) for c in range(n)]
        task.check_cancelled()
        task.report(spent["calls"], options.budget, f"model calls {spent['calls'] + 1} to {spent['calls'] + n} "
                                                    f"of {options.budget}, together")
        for j, (text, _, _) in enumerate(asks):
            if on_call is not None:
                on_call(spent["calls"] + j, text)
        generations = write_batch(backend, [a[0] for a in asks], [a[1] for a in asks], False, task)
        if any(g.stats.stop_reason == "cancelled" for g in generations):
            raise Cancelled()
        out = []
        for generation, (text, decoding_, seed) in zip(generations, asks):
            task.check_cancelled()
            out.append(answered(text, generation, decoding_, parent, seed))
            if out[-1].judgement.equivalent:
                break
        return out

    def child_call(parent: SearchNode, node_id: int, expansions: int, own: int, c: int,
                   repeats: int) -> tuple[str, DecodingOptions, int]:
        """The c-th child of `parent` in its `expansions`-th expansion, after `repeats` of its siblings repeated an
        answer: (prompt, decoding, prompt seed). The node's answer and feedback after a root prompt: its own for
        the first child, the other roots' (other context examples) for the rest, which breaks a small model's habit
        of copying its earlier answer from an unchanged context. A conversation goes on with its own prompt and
        the draft's decoding."""
        at = (own + c) % len(prompts) if options.rotate else own
        prompt_ = follow_up(asked[parent.id] if options.conversation else prompts[at].text, parent.answer,
                            parent.feedback or _GENERIC, template)
        if options.conversation:
            return prompt_, decoding, draft.seed + at
        seed = _decoding_seed(draft.seed, node_id, expansions * options.children + c)
        return prompt_, replace(decoding, temperature=options.child_temperature(expansions, repeats),
                                speculate=decoding.speculate or options.speculate_children,
                                seed=seed if options.temperature else draft.seed, forbidden=refused(parent),
                                judged=judged_before(lineage[parent.id])), draft.seed + at

    def forbidden(parent: SearchNode) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """Guided: the literals the parent's feedback told it to take out, per section (only feedback that
        shows the distinguishing state names them)."""
        if options.feedback not in (Feedback.PLANS, Feedback.ALL) or decoding.literals is None:
            return None
        ev = parent.judgement.evaluation
        proof = ev.proof if ev is not None else None
        if proof is None or proof.counterexample is None:
            return None
        state = proof.counterexample.state
        shown = state.issues[:ISSUES_SHOWN]          # only what the child was told
        removals = [(sec, lit) for sec, lit in state.removals if any(f"extra {sec} {lit}" in i for i in shown)]
        out = tuple(tuple(lit for sec, lit in removals if sec == section) for section in ("precondition", "effect"))
        return out if any(out) else None

    def refused(parent: SearchNode | None) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """What the next call may not write: the grammar's never-applicable literals, with `forbid_removed` what the
        parent's feedback told it to take out, with `forbid_learned` what the judged answers showed wrong."""
        told = forbidden(parent) if options.forbid_removed and parent is not None else None
        return _union(decoding.forbidden, told, (tuple(learned), ()) if learned else None)

    def judged_before(root: int | None = None) -> tuple[str, ...] | None:
        """refuse_judged: the answers judged before, but those awaiting agreement from another lineage than
        `root`'s (None: a new root), which may write one again: that is the independent answer it waits for."""
        waiting = {i for i in awaiting if lineage[i] != root}
        texts = tuple(text for text, i in tried if i not in waiting)
        return texts if options.refuse_judged and texts else None

    def root(j: int) -> tuple[str, DecodingOptions, int]:
        """The j-th root's prompt, decoding and prompt seed."""
        if options.sample_roots:
            return prompts[0].text, replace(decoding, temperature=decoding.temperature or options.temperature,
                                            seed=draft.seed + j), draft.seed
        if options.conversation or options.batch:
            return prompts[j].text, decoding, draft.seed + j
        return prompts[j].text, replace(decoding, seed=draft.seed + j, judged=judged_before(),
                                        forbidden=refused(None)), draft.seed + j

    try:
        if options.batch:
            roots = ask_batch([root(j) for j in range(min(options.width, options.budget))])
            if any(node.judgement.equivalent for node in roots):
                return finish(Stopped.EQUIVALENT)
        for j in range(0 if options.batch else options.width):
            if out_of_budget():
                break
            text, decoding_, seed = root(j)
            node = ask(text, decoding_, None, seed)
            if node.judgement.equivalent:
                return finish(Stopped.EQUIVALENT)
            if options.conversation and node.feedback is None:
                return finish(Stopped.EXHAUSTED)     # nothing to tell the next round
        while (why := out_of_budget()) is None:
            if not frontier:
                if not resting:
                    return finish(Stopped.EXHAUSTED)
                for entry in resting:       # every node has had its turn: the resting ones again, while still heating
                    expansions = entry[1]
                    if options.child_temperature(expansions) > options.child_temperature(expansions - 1):
                        heapq.heappush(frontier, entry)
                resting.clear()
                continue
            if options.conversation:
                parent = nodes[-1]
                node_id, expansions = parent.id, 0
            elif options.policy == "linear":
                parent = nodes[-1] if nodes[-1].duplicate_of is None else nodes[nodes[-1].duplicate_of]
                node_id, expansions = parent.id, sum(1 for n in nodes if n.parent == parent.id)
            else:
                key, expansions, node_id = heapq.heappop(frontier)
                parent = nodes[node_id]
            own = parent.seed - draft.seed
            together = (ask_children(parent, node_id, expansions, own) if options.batch_children
                        and not options.conversation and hasattr(backend, "generate_batch") else [])
            fresh = sum(node.duplicate_of is None for node in together)
            repeats = len(together) - fresh
            if any(node.judgement.equivalent for node in together):
                return finish(Stopped.EQUIVALENT)
            for c in range(0 if together else options.children):
                if out_of_budget():
                    break
                child_prompt, child_decoding, prompt_seed = child_call(parent, node_id, expansions, own, c, repeats)
                node = ask(child_prompt, child_decoding, parent, prompt_seed)
                fresh += node.duplicate_of is None
                repeats += node.duplicate_of is not None
                if node.judgement.equivalent:
                    return finish(Stopped.EQUIVALENT)
                if options.conversation and node.feedback is None:
                    return finish(Stopped.EXHAUSTED)
            if options.policy != "linear" and not options.conversation:
                entry = (key, expansions + 1, node_id)
                if fresh:
                    heapq.heappush(frontier, entry)
                else:           # it only repeats itself and its siblings: spend the calls elsewhere first
                    resting.append(entry)
        return finish(why)
    except Cancelled:
        if options.raises:
            raise
        return finish(Stopped.CANCELLED)
    except (ModelError, DrafterError) as exc:
        if options.raises:
            raise
        return finish(Stopped.ERROR, str(exc))
