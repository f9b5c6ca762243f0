"""The authoring window's jobs: Draft all, Draft, Try it, Judge working copy.

A mixin of AuthoringWindow. Each job takes everything it needs from the AppState when it starts
(the model chosen now, the settings' DraftOptions and evaluator, the example pool) and plain data
from the working copy (taken here, on the GUI thread); its results are recorded here too.
"""

from __future__ import annotations

from collections.abc import Callable

from domain_drafter.drafting.new_action import (
    NewActionAnswer,
    TryReport,
    new_action_prompt,
    provisional_bundle,
    record_new_action,
)
from domain_drafter.drafting.whole_domain import ActionOutcome, DomainDraft, record
from domain_drafter.gui.authoring.jobs import (
    detached_copy,
    draft_all_job,
    draft_one_job,
    judge_job,
    new_action_job,
    try_job,
)
from domain_drafter.gui.state.errors import describe_error
from domain_drafter.gui.state.workers import JobKind, TaskWorker
from domain_drafter.llm.model_library import LeaseSource
from domain_drafter.text.verdicts import format_comparison

JOB_WORDS = {JobKind.DRAFT_ALL: "Draft all", JobKind.DRAFT: "Draft", JobKind.TRY: "Try it",
             JobKind.JUDGE: "Judge working copy", JobKind.SAVE: "Save", JobKind.EXPORT: "Export"}


def sentence(text: str) -> str:
    """`text` ending as a sentence does (the engine's lines have no full stop: they are also list items)."""
    return text if text.rstrip().endswith((".", ":", "!", "?")) else text + "."


class AuthoringRunsMixin:
    """Needs the AuthoringWindow's state, workspace, runner, verdict, tabs, editor, counterexample, say and
    after_change."""

    def lease_source(self) -> LeaseSource | None:
        """Leases the model chosen now (a later switch applies to later jobs); None if there is none."""
        entry, models = self.state.model, self.state.models
        if entry is None:
            return None
        return lambda task: models.acquire(entry, task)

    def bundle_pool(self) -> list:
        if not self.state.bundles:
            from domain_drafter.core.bundle import load_bundled

            self.state.set_bundles(load_bundled())
        return list(self.state.bundles)

    def start_job(self, worker: TaskWorker, on_finished: Callable[[object], None]) -> TaskWorker | None:
        if self.runner.busy or self._closing:
            return None
        worker.signals.finished.connect(on_finished)
        worker.signals.failed.connect(lambda err, kind=worker.kind: self._job_failed(kind, err))
        worker.signals.cancelled.connect(lambda kind=worker.kind: self.say(f"{JOB_WORDS[kind]}: stopped."))
        worker.signals.progress.connect(self._on_progress)
        return self.runner.start(worker)

    def _job_failed(self, kind: JobKind, error: BaseException) -> None:
        self.say(f"{JOB_WORDS.get(kind, 'Job')} failed: {describe_error(error).text}")

    def _on_progress(self, done: int, total: int, message: str) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.say(message)

    # --- drafting ------------------------------------------------------------------------------
    def draft_all(self) -> None:
        lease = self.lease_source()
        if lease is None or self.runner.busy:
            return
        self._options = self.state.draft_options()
        self.verdict.setPlainText("Drafting every action...")
        worker = TaskWorker(draft_all_job, lease, self.workspace.reference_bundle(), self.state.evaluator,
                            self.bundle_pool(), self._options, self.state.prompt_template(),
                            kind=JobKind.DRAFT_ALL, yields=True)
        worker.signals.yielded.connect(self._on_outcome)   # each action's outcome as it is drafted
        self.start_job(worker, self._on_domain_draft)

    def _on_outcome(self, item: tuple[ActionOutcome, str]) -> None:
        outcome, model = item   # recorded here, in the GUI thread, as each action's verdict arrives
        record(self.workspace, outcome, model, self._options, accept=False)
        self.after_change(outcome.name)

    def _on_domain_draft(self, result: DomainDraft) -> None:
        self.tabs.setCurrentWidget(self.verdict)
        lines = [format_comparison(result.comparison, self.workspace.reference_bundle()),
                 f"  ARE total {result.are_total} over {result.are_defined} of {len(result.outcomes)} actions"]
        if result.failed:
            lines.append(f"  left out of D' (failed the checks): {', '.join(result.failed)}")
        self.verdict.setPlainText("\n".join(lines))
        self.say(f"Drafted {len(result.outcomes)} actions: {result.comparison.verdict.value}.")

    def draft_selected(self) -> None:
        name, lease = self.selected(), self.lease_source()
        if name is None or lease is None or self.runner.busy:
            return
        options = self._options = self.state.draft_options()
        if self.workspace.entry(name).new is not None:   # prompt and vocabulary taken here, the answer recorded here
            prompt = new_action_prompt(self.workspace, name, self.bundle_pool(), options, self.state.prompt_template())
            worker = TaskWorker(new_action_job, lease, prompt, provisional_bundle(self.workspace), name, options,
                                self.state.evaluator, self.state.prompt_template(), kind=JobKind.DRAFT)
        else:
            worker = TaskWorker(draft_one_job, lease, self.workspace.reference_bundle(), name, self.state.evaluator,
                                self.bundle_pool(), options, self.state.prompt_template(), kind=JobKind.DRAFT)
        self.start_job(worker, self._on_drafted)

    def _on_drafted(self, result: object) -> None:
        if isinstance(result, NewActionAnswer):
            record_new_action(self.workspace, result, self._options)
            rounds = len(result.rounds)
            name, verdict = result.name, result.verdict + (f" (in {rounds} rounds)" if rounds > 1 else "")
            if result.error:   # the model failed when asked again: the rounds before are kept
                verdict += f"; not asked again: {result.error.splitlines()[0]}"
        else:
            outcome, model = result
            record(self.workspace, outcome, model, self._options, accept=False)
            final = outcome.evaluation
            name, verdict = outcome.name, final.subclass.value if final.subclass else "no verdict"
            self.counterexample.show_result(final, name)
        self.after_change(name)
        self.say(f"Drafted {name}: {verdict}.")

    # --- judging -------------------------------------------------------------------------------
    def judge(self) -> None:
        """The whole-domain verdict on the working copy as it stands."""
        if self.runner.busy:
            return
        self.verdict.setPlainText("Judging the working copy against the reference...")
        self.tests.run()   # the domain's own tests judge it too (their tab)
        worker = TaskWorker(judge_job, self.workspace.reference_bundle(), self.workspace.working_domain(),
                            self.state.evaluator, kind=JobKind.JUDGE)
        self.start_job(worker, self._on_judged)

    def _on_judged(self, comparison) -> None:
        self.tabs.setCurrentWidget(self.verdict)
        self.verdict.setPlainText("Working copy: " + format_comparison(comparison, self.workspace.reference_bundle()))
        self.say(f"Judged the working copy: {comparison.verdict.value}.")

    def try_selected(self) -> None:
        name = self.selected()
        if name is None or self.runner.busy:
            return
        worker = TaskWorker(try_job, detached_copy(self.workspace), name, self.state.evaluator.planner,
                            self.editor.toPlainText(), kind=JobKind.TRY)
        self.start_job(worker, self._on_tried)

    def _on_tried(self, report: TryReport) -> None:
        self.tabs.setCurrentWidget(self.verdict)
        lines = [f"Try it: {report.action} is {'used' if report.used else 'not used'} by the plans."]
        for problem in report.problems:
            lines.append(f"  {sentence(problem.message)}")
            lines.extend(f"      {sentence(line)}" for line in problem.words)
        self.verdict.setPlainText("\n".join(lines))
        self.say(lines[0])
