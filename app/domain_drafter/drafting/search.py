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
call), and a call that repeats itself is ended at the third copy.

It stops (`Stopped`) at the first proven Equivalent, when a budget (calls, tokens, seconds) is spent,
when nothing is left to expand, on cancel, or when the model fails; the result always holds the whole
tree. Deterministic for a seed. The measurements behind these choices: resources/results/
search-design-notes.md.
"""

from __future__ import annotations

import enum
import heapq
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from domain_drafter.core.answer_repair import repair_answer
from domain_drafter.core.answers import check_answer
from domain_drafter.core.bundle import DomainBundle
from domain_drafter.core.classes import Subclass
from domain_drafter.core.errors import DrafterError, ModelError, UsageError
from domain_drafter.core.model import canonical_action
from domain_drafter.core.prompt import Prompt, PromptTemplate, build_prompt, load_template
from domain_drafter.core.tasks import Cancelled, TaskState
from domain_drafter.drafting.candidates import Candidate, draft_decoding, has_reference
from domain_drafter.drafting.feedback import ISSUES_SHOWN, explored, judgement_feedback
from domain_drafter.drafting.judges import Judge, Judgement, checks_judge, reference_judge
from domain_drafter.drafting.loop import follow_up
from domain_drafter.drafting.options import DraftOptions, Feedback, SearchOptions
from domain_drafter.llm.backend import (
    GUIDED_NEEDS_LOGITS,
    DecodingOptions,
    Generation,
    GenerationBackend,
    GenerationStats,
    steers_tokens,
)
from domain_drafter.planning.evaluate import Evaluator


class Stopped(enum.StrEnum):
    """Why a search stopped (a str, so `result.stopped == "budget"` still reads)."""

    EQUIVALENT = "equivalent"   # an answer was proven Equivalent
    BUDGET = "budget"           # the model calls are spent
    TOKENS = "tokens"           # the generated tokens are spent
    TIME = "time"               # the seconds are spent
    EXHAUSTED = "exhausted"     # no answer is left to expand
    CANCELLED = "cancelled"
    ERROR = "error"             # the model (or the drafter) failed: `SearchResult.error` says how


_GENERIC = "it does not do what the description says; reconsider its preconditions and effects"


@dataclass(frozen=True)
class SearchNode:
    """One answer of the tree."""

    id: int
    parent: int | None            # None for a root answer
    depth: int
    call: int                     # the model call (1-based) that wrote it
    seed: int                     # the prompt seed of the root prompt it was written after
    decoding_seed: int
    answer: str
    stats: GenerationStats
    judgement: Judgement
    feedback: str | None = None   # what its children were (or would be) told
    duplicate_of: int | None = None
    repair_of: int | None = None  # a quick fix of that node's answer (no model call of its own)
    repairs: tuple[str, ...] = () # the quick fix's edits, in words
    temperature: float = 0.0      # the decoding's (0: greedy)
    dead: bool = False            # Different domain, and its action applies in no reachable state of any problem

    @property
    def score(self) -> float:
        return self.judgement.score

    @property
    def frontier_key(self) -> tuple:
        """The frontier's order (smaller first): the judgement's key with the dead answers after the live ones
        of the same class."""
        key = self.judgement.key
        return (*key[:2], self.dead, *key[2:])

    def to_dict(self) -> dict:
        ev = self.judgement.evaluation
        return {"id": self.id, "parent": self.parent, "depth": self.depth, "call": self.call, "seed": self.seed,
                "decoding_seed": self.decoding_seed, "answer": self.answer, "stats": self.stats.__dict__,
                "verdict": self.judgement.verdict, "score": self.score, "equivalent": self.judgement.equivalent,
                "are": ev.are.total if ev is not None and ev.are is not None else None,
                "solvable": list(self.judgement.solvable), "tests_passed": self.judgement.tests_passed,
                "tests_total": self.judgement.tests_total, "feedback": self.feedback,
                "duplicate_of": self.duplicate_of, "repair_of": self.repair_of, "repairs": list(self.repairs),
                "temperature": self.temperature, "dead": self.dead}


@dataclass(frozen=True)
class SearchResult:
    """The whole tree, the best answer, what was spent, and why the search stopped."""

    prompt: Prompt
    options: SearchOptions
    nodes: tuple[SearchNode, ...]
    stopped: Stopped
    calls: int                    # model calls (a quick fix is a node but not a call)
    generated_tokens: int
    prompt_tokens: int
    wall_s: float
    error: str | None = None
    grammar: str | None = None
    timings: dict = field(default_factory=dict, compare=False)

    @property
    def best(self) -> SearchNode | None:
        nodes = [n for n in self.nodes if n.duplicate_of is None]
        return min(nodes, key=lambda n: (n.judgement.key, n.id)) if nodes else None

    @property
    def equivalent_at(self) -> int | None:
        """The model call that wrote the first proven Equivalent answer (None: none was found)."""
        return next((n.call for n in self.nodes if n.judgement.equivalent), None)

    @property
    def best_scores(self) -> list[float]:
        """After each model call, the best score so far (for the progress line and the figure); a call's
        quick fix counts with the call."""
        out, best = [], 0.0
        for n in self.nodes:
            best = max(best, n.score)
            if n.repair_of is None:
                out.append(best)
            elif out:
                out[-1] = best
        return out

    def to_dict(self) -> dict:
        best = self.best
        return {"options": self.options.to_dict(), "stopped": self.stopped.value, "error": self.error,
                "calls": self.calls, "generated_tokens": self.generated_tokens, "prompt_tokens": self.prompt_tokens,
                "wall_s": self.wall_s, "best": best.id if best is not None else None,
                "equivalent_at": self.equivalent_at, "nodes": [n.to_dict() for n in self.nodes],
                "timings": dict(self.timings)}


def node_candidate(node: SearchNode) -> Candidate:
    """A searched answer as a Candidate, for the lists that show candidates (Draft until proven)."""
    where = "root" if node.parent is None else f"child of #{node.parent + 1}"
    if node.repair_of is not None:
        where = f"quick fix of #{node.repair_of + 1}"
    if node.duplicate_of is not None:
        where += f", same as #{node.duplicate_of + 1}"
    return Candidate(node.id, node.decoding_seed if node.parent is not None else node.seed, node.parent is not None,
                     node.answer, node.stats, node.judgement, score=node.judgement.score,
                     origin=f"call {node.call}, {where}")


def ranked_nodes(result: SearchResult) -> list[Candidate]:
    """Every answer of the tree as a Candidate, best first (the frontier's order), `rank` 1..N."""
    order = sorted(result.nodes, key=lambda n: (n.duplicate_of is not None, n.judgement.key, n.id))
    return [replace(node_candidate(n), rank=i) for i, n in enumerate(order, start=1)]


def never_applies(bundle: DomainBundle, action: str, judgement: Judgement) -> bool:
    """A Different-domain answer (no plan, or a plan of the reference it cannot follow) whose action applies in no
    reachable state of any of the domain's problems, by an exploration of the answer's own domain (no reference).
    False where that is not known (an exploration cut short says nothing)."""
    if judgement.subclass not in (Subclass.NO_PLAN, Subclass.NP_APP) or not bundle.problems:
        return False
    reach = explored(bundle, action, judgement).reach      # these classes come after a parsed answer
    return reach is not None and all(any(b.action == action for b in r.blocked) for r in reach)


def _decoding_seed(seed: int, node: int, child: int) -> int:
    """A decoding seed that depends only on the search's seed and the place in the tree."""
    return (seed * 1_000_003 + node * 1_009 + child * 7 + 1) % (2**31 - 1)


def search_action(bundle: DomainBundle, action: str, backend: GenerationBackend, evaluator: Evaluator,
                  pool: Sequence[DomainBundle], draft: DraftOptions = DraftOptions(),
                  options: SearchOptions = SearchOptions(), *, template: PromptTemplate | None = None,
                  judge: Judge | None = None, reference: bool | None = None,
                  on_node: Callable[[SearchNode], None] | None = None,
                  task: TaskState | None = None) -> SearchResult:
    """Search for an answer to `action` that the judge proves right (see the module's docstring).

    `judge` None: the proof against the bundle's action where it has one (`has_reference`), else the
    checks and the problems. `on_node` fires for each answer as it is judged. Never raises on a model
    failure or a cancel once started: the result says why it stopped and keeps the tree.
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
    prompts = [build_prompt(bundle, action, pool, draft.description_class, draft.seed + j, draft.examples, template)
               for j in range(options.width)]
    started = time.perf_counter()
    nodes: list[SearchNode] = []
    seen: dict[str, int] = {}           # merge key -> the node judged first
    tried: list[str] = []               # refuse_judged: the answers judged (not merged)
    frontier: list[tuple[tuple, int, int]] = []   # (SearchNode.frontier_key, expansions, node id)
    resting: list[tuple[tuple, int, int]] = []    # nodes whose last expansion wrote nothing new: until the others had a turn
    spent = {"generated": 0, "prompt": 0, "calls": 0}
    judge_s = [0.0]

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
        task.report(spent["calls"], options.budget, f"model call {spent['calls'] + 1} of {options.budget}{shown}")
        generation: Generation = backend.generate(prompt, decoding_, task=task)
        if generation.stats.stop_reason == "cancelled":
            raise Cancelled()
        spent["calls"] += 1
        spent["generated"] += generation.stats.generated_tokens
        spent["prompt"] += generation.stats.prompt_tokens
        node = judged(generation.text, generation.stats, decoding_, parent, seed)
        if options.repair and node.duplicate_of is None and not node.judgement.equivalent:
            revises = parent.judgement.check.action if parent is not None else None
            fix = repair_answer(node.judgement.check, bundle.domain, revises=revises)
            if fix is not None:
                no_call = GenerationStats(0, 0, 0.0, 0.0, 0.0, "quick-fix")   # written by the repair, not the model
                fixed = judged(fix.text, no_call, decoding_, parent, seed, node.id, fix.edits)
                if fixed.judgement.equivalent:
                    return fixed
        return node

    def judged(key_text: str, stats: GenerationStats, decoding_: DecodingOptions, parent: SearchNode | None, seed: int,
               repair_of: int | None = None, repairs: tuple[str, ...] = ()) -> SearchNode:
        t0 = time.perf_counter()
        node_id = len(nodes)
        merged = None
        quick = check_answer(key_text, bundle.domain, action)
        merge = canonical_action(quick.action) if quick.action is not None else " ".join(key_text.split())
        if merge in seen:
            merged = seen[merge]
            judgement = nodes[merged].judgement
            said = nodes[merged].feedback
            dead = nodes[merged].dead
        else:
            judgement = explored(bundle, action, judge(key_text, quick))   # parsed once, explored once
            said = None if judgement.equivalent else (
                judgement_feedback(bundle, action, judgement, options.feedback) or _GENERIC)
            dead = never_applies(bundle, action, judgement)
        judge_s[0] += time.perf_counter() - t0
        node = SearchNode(node_id, parent.id if parent is not None else None,
                          parent.depth + 1 if parent is not None else 0, spent["calls"], seed, decoding_.seed,
                          key_text, stats, judgement, said, merged, repair_of, repairs, decoding_.temperature, dead)
        nodes.append(node)
        if merged is None:
            seen[merge] = node_id
            tried.append(key_text)
            heapq.heappush(frontier, (node.frontier_key, 0, node_id))
        if on_node is not None:
            on_node(node)
        return node

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

    def judged_before() -> tuple[str, ...] | None:
        return tuple(tried) if options.refuse_judged and tried else None

    try:
        for j, prompt in enumerate(prompts):
            if out_of_budget():
                break
            node = ask(prompt.text, replace(decoding, seed=draft.seed + j, judged=judged_before()), None,
                       draft.seed + j)
            if node.judgement.equivalent:
                return finish(Stopped.EQUIVALENT)
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
            if options.policy == "linear":
                parent = nodes[-1] if nodes[-1].duplicate_of is None else nodes[nodes[-1].duplicate_of]
                node_id, expansions = parent.id, sum(1 for n in nodes if n.parent == parent.id)
            else:
                key, expansions, node_id = heapq.heappop(frontier)
                parent = nodes[node_id]
            own = parent.seed - draft.seed
            fresh = repeats = 0
            for c in range(options.children):
                if out_of_budget():
                    break
                # the node's answer and feedback after a root prompt: its own for the first child, the other
                # roots' (other context examples) for the rest, which breaks a small model's habit of copying
                # its earlier answer from an unchanged context
                at = (own + c) % len(prompts) if options.rotate else own
                child_prompt = follow_up(prompts[at].text, parent.answer, parent.feedback or _GENERIC, template)
                seed = _decoding_seed(draft.seed, node_id, expansions * options.children + c)
                child_decoding = replace(decoding, temperature=options.child_temperature(expansions, repeats),
                                         seed=seed if options.temperature else draft.seed,
                                         forbidden=forbidden(parent) if options.forbid_removed else None,
                                         judged=judged_before())
                node = ask(child_prompt, child_decoding, parent, draft.seed + at)
                fresh += node.duplicate_of is None
                repeats += node.duplicate_of is not None
                if node.judgement.equivalent:
                    return finish(Stopped.EQUIVALENT)
            if options.policy != "linear":
                entry = (key, expansions + 1, node_id)
                if fresh:
                    heapq.heappush(frontier, entry)
                else:           # it only repeats itself and its siblings: spend the calls elsewhere first
                    resting.append(entry)
        return finish(why)
    except Cancelled:
        return finish(Stopped.CANCELLED)
    except (ModelError, DrafterError) as exc:
        return finish(Stopped.ERROR, str(exc))
