"""The answer workflow of one target action: generate (streaming), evaluate, show, remember.

`DraftController` prepares the workers for Generate and Evaluate, streams tokens into the
answer editor (coalesced, so the GUI thread never falls behind a fast model), shows verdicts
in the result panel, and keeps each action's answer and verdict to restore when the user
comes back to it. It reads the target from the AppState and follows its `target_changed`;
nobody hands it a copy. The window starts the workers and reports their errors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, QTimer, Signal

from domain_drafter.drafting.loop import Draft
from domain_drafter.gui.editor.code_editor import normalized
from domain_drafter.gui.panels.answer_panel import AnswerPanel
from domain_drafter.gui.panels.result_panel import ResultPanel
from domain_drafter.gui.state.app_state import AppState, Target
from domain_drafter.gui.state.jobs import evaluate_answer, generate_answer
from domain_drafter.gui.state.workers import JobKind, TaskWorker
from domain_drafter.llm.backend import GenerationStats
from domain_drafter.llm.models import ModelEntry
from domain_drafter.planning.evaluate import EvaluationResult
from domain_drafter.planning.invariant_findings import apply_edits, edit_in_words

TOKEN_FLUSH_MS = 40
STOP_WORDS = {"length": "stopped at the Max new tokens limit", "stop": "stopped at a stop sequence",
              "eos": "the model ended its answer", "cancelled": "stopped",
              "loop": "stopped: the answer repeated itself"}


def generation_text(stats: GenerationStats, rounds: int, verdict: str) -> str:
    """`Wrote 42 tokens at 310 tokens/s (stopped at a stop sequence); verdict: UToken` for the status bar."""
    how = STOP_WORDS.get(stats.stop_reason, stats.stop_reason)
    tokens = f"{stats.generated_tokens} token{'' if stats.generated_tokens == 1 else 's'}"
    in_rounds = f" in {rounds} rounds" if rounds > 1 else ""
    return f"Wrote {tokens} at {stats.tokens_per_s:.0f} tokens/s ({how}){in_rounds}; verdict: {verdict}"


@dataclass
class _Saved:
    text: str
    result: EvaluationResult | None   # None when the text was edited after its verdict


class DraftController(QObject):
    result_shown = Signal(object)   # an EvaluationResult now on screen
    status = Signal(str)
    generated = Signal(object)      # the Draft of a finished generation
    evaluated = Signal(object)      # the EvaluationResult of a finished Evaluate
    streaming = Signal(int, int)    # tokens written so far, the most the settings allow

    def __init__(self, state: AppState, answer_panel: AnswerPanel, result_panel: ResultPanel, *,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.state = state
        self.answer_panel, self.result_panel = answer_panel, result_panel
        self.streamed_text = ""             # what the model streamed in the last generation
        self._streamed_pieces = 0
        self._max_tokens = 0
        self._shown: Target | None = None   # the target whose answer the editor holds
        self._saved: dict[tuple[str, str], _Saved] = {}
        self._fresh = False                 # the result panel's verdict fits the editor's text
        self._pending: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TOKEN_FLUSH_MS)
        self._timer.timeout.connect(self.flush_tokens)
        self._closed = False
        self._writing = True                # the model of the running generation wrote (or none runs)
        self._fresh_before = False
        self._model_name = ""
        answer_panel.edited.connect(self._on_edited)
        state.target_changed.connect(self._on_target_changed)   # slots of this controller: they end with it
        state.dismissals_changed.connect(self._on_dismissals_changed)

    @property
    def evaluator(self):
        """The evaluator new jobs use (the AppState's, for the current settings)."""
        return self.state.evaluator

    # --- the target ------------------------------------------------------------------------
    def _on_target_changed(self, target: Target) -> None:
        """Another action (not only another class or seed): keep the current answer, restore the new one's."""
        shown = self._shown
        if shown is not None and (shown.bundle, shown.action) == (target.bundle, target.action):
            return
        if shown is not None and shown.key is not None:
            result = self.result_panel.result if self._fresh else None
            self._saved[shown.key] = _Saved(self.answer_panel.text(), result)
        self._shown = target
        saved = self._saved.get(target.key) if target.key is not None else None
        self.answer_panel.set_text(saved.text if saved else "")
        self.answer_panel.clear_findings()
        self.result_panel.clear()
        self._fresh = False
        if saved is not None and saved.result is not None:
            self.show_result(saved.result)

    def _on_dismissals_changed(self, folder: object, action: str, keys: frozenset[str]) -> None:
        """A finding of the shown answer's action was dismissed or restored: its underline follows (the verdict
        and the answer stay; an answer edited since its verdict has no underlines to change)."""
        shown, bundle = self.result_panel.result, self.state.bundle
        if (not self._fresh or shown is None or shown.invariants is None or bundle is None
                or bundle.folder != folder or shown.action != action):
            return
        self.show_result(replace(shown, invariants=shown.invariants.with_dismissed(keys)))

    def apply_finding_edit(self, action: str, key: str) -> str | None:
        """Make the edit the shown answer's invariant finding `key` says, in the editor (one step Undo takes back),
        and return it in words; None when the verdict on screen is not of the editor's text or of `action`, or
        the finding says no edit. The caller judges the new text (the verdict shown is of the old one)."""
        result = self.result_panel.result
        if (not self._fresh or result is None or result.action != action or result.invariants is None
                or result.check.action is None):
            return None
        finding = next((f for f in result.invariants.findings if f.key == key and f.edits), None)
        if finding is None:
            return None
        edited = apply_edits(result.check.action, finding.edits)
        self.answer_panel.editor.replace_all(edited.to_pddl(indent=""))
        return "; ".join(edit_in_words(edit) for edit in finding.edits)

    def _on_edited(self) -> None:
        if self._fresh:
            self._fresh = False
            self.result_panel.show_note("The answer was edited after it was judged: press Evaluate.")

    # --- workers ---------------------------------------------------------------------------
    def generate_worker(self, entry: ModelEntry) -> TaskWorker:
        """A worker that loads `entry` if needed, generates (streaming here) and evaluates, all as set now."""
        state = self.state
        assert state.has_target
        options = state.draft_options()
        self._max_tokens = options.decoding.max_tokens * (options.retries + 1)
        self._streamed_pieces = 0
        worker = TaskWorker(generate_answer, state.models, entry, state.bundle, state.action, state.evaluator,
                            list(state.bundles), options, state.prompt_template(), streams_tokens=True,
                            kind=JobKind.GENERATE)
        worker.signals.token.connect(self._on_token)
        worker.signals.finished.connect(self._on_generated)
        self._connect_ends(worker)
        self._pending.clear()
        self.streamed_text = ""
        # Nothing is cleared until the model writes (a model that cannot load leaves the answer and its verdict).
        self._writing, self._fresh_before, self._model_name = False, self._fresh, entry.name
        self.answer_panel.show_waiting(entry.name)
        if self.result_panel.result is None:   # no verdict to keep: the how-to makes room for the note
            self.result_panel.show_working(f"Generating with {entry.name}…")
        else:
            self.result_panel.show_note(f"Generating with {entry.name}…")
        return worker

    def _start_writing(self) -> None:
        """The model's first words: the editor and the verdict make room for its answer."""
        self._writing = True
        self.answer_panel.set_text("")
        self.answer_panel.clear_findings()
        self.result_panel.show_working(f"Generating with {self._model_name}…")
        self._fresh = False

    def evaluate_worker(self) -> TaskWorker | None:
        """A worker that judges the editor's text; None (and the result panel says so) if it is blank."""
        assert self.state.has_target
        if not self.answer_panel.text().strip():
            self.answer_panel.clear_findings()
            self.result_panel.clear("Nothing to judge: the answer editor is empty. Generate an answer, or type "
                                    "or paste one, then Evaluate.")
            self.status.emit("Nothing to judge yet")
            return None
        worker = TaskWorker(evaluate_answer, self.state.evaluator, self.state.bundle, self.state.action,
                            self.answer_panel.text(), kind=JobKind.EVALUATE)
        worker.signals.finished.connect(self._on_evaluated)
        self._connect_ends(worker)
        self._writing = True   # a failed Evaluate clears the verdict it was asked for
        self.answer_panel.clear_findings()
        self.result_panel.show_working("Evaluating…")
        return worker

    def _connect_ends(self, worker: TaskWorker) -> None:
        worker.signals.failed.connect(self._on_failed)
        worker.signals.cancelled.connect(self._on_cancelled)

    def _on_token(self, piece: str) -> None:
        self.streamed_text += piece
        self._streamed_pieces += 1
        self._pending.append(piece)
        if not self._timer.isActive():
            self._timer.start()

    def flush_tokens(self) -> None:
        self._timer.stop()
        if self._pending and not self._closed:
            text = "".join(self._pending)
            self._pending.clear()
            if not self._writing:
                self._start_writing()
            self.answer_panel.append_text(text)
            self.streaming.emit(self._streamed_pieces, self._max_tokens)

    def _on_generated(self, draft: Draft) -> None:
        if self._closed:
            return
        self.flush_tokens()
        self._writing = True
        final = draft.final
        if self.answer_panel.text() != normalized(final.answer):
            self.answer_panel.set_text(final.answer)
        self.show_result(final)
        stats = draft.rounds[-1].generation.stats
        verdict = final.subclass.value if final.subclass else "none"
        self.status.emit(generation_text(stats, len(draft.rounds), verdict))
        self.generated.emit(draft)

    def _on_evaluated(self, result: EvaluationResult) -> None:
        if self._closed:
            return
        self.show_result(result)
        seconds = result.timings.get("total_s", result.timings.get("check_s", 0.0))
        self.status.emit(f"Evaluated in {seconds:.2f} s: {result.subclass.value if result.subclass else 'no verdict'}")
        self.evaluated.emit(result)

    def _on_failed(self, _error: BaseException) -> None:
        if not self._closed:
            self.flush_tokens()
            self._ended("No verdict: the job failed (see the error).")

    def _on_cancelled(self) -> None:
        if not self._closed:
            self.flush_tokens()
            self._ended("Stopped before a verdict; the answer so far stays in the editor.")

    def _ended(self, note: str) -> None:
        """A job that ended without a verdict; a generation whose model never wrote leaves everything as it was."""
        if self._writing:
            self.result_panel.clear(note)
            return
        self._fresh = self._fresh_before
        if self.result_panel.result is None:
            self.result_panel.clear(note)
        else:
            self.result_panel.show_note(f"{note} The answer and its verdict are as they were.")

    def show_result(self, result: EvaluationResult) -> None:
        bundle = self.state.bundle
        if bundle is None:
            return
        report = result.invariants
        self.answer_panel.show_findings(result.findings, result.answer, report.findings if report else (),
                                        result.check.candidate_span)
        self.result_panel.show_result(result, bundle.domain.action(result.action), bundle)
        self._fresh = True
        self.result_shown.emit(result)

    def close(self) -> None:
        """Stop showing results (the models and caches belong to the AppState)."""
        self._closed = True
        self._timer.stop()
