"""Watch what the real engine receives from the desktop app, without changing what it does.

Each spied method records its arguments and then runs the real one, on the real objects: the
calls reach llama.cpp, the evaluator and K* unchanged. (A module of its own: test module names
must be unique across tests/.)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class EngineCalls:
    generations: list = field(default_factory=list)   # (prompt text, DecodingOptions)
    evaluations: list = field(default_factory=list)   # (EvaluationOptions, planner k, planner time limit)
    plans: list = field(default_factory=list)         # (planner k, planner time limit) of every K* run
    feedback: list = field(default_factory=list)      # the Feedback of every draft's corrective rounds
    attempts: list = field(default_factory=list)      # (action, thread name) of every attempt recorded
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, value) -> None:
        with self.lock:
            getattr(self, name).append(value)

    def drafting(self) -> list:
        """The generations of drafts (a prompt warm-up asks for one token and is left out)."""
        return [g for g in self.generations if g[1].max_tokens != 1 or g[1].stop]


def spy_on_engine(monkeypatch) -> EngineCalls:
    import domain_drafter.drafting.loop as loop
    from domain_drafter.drafting.workspace import WorkingCopy
    from domain_drafter.llm.llama import LlamaCppBackend
    from domain_drafter.planning.evaluate import Evaluator
    from domain_drafter.planning.kstar import KStarPlanner

    calls = EngineCalls()
    generate, evaluate, plan = LlamaCppBackend.generate, Evaluator.evaluate, KStarPlanner.plan
    corrective_options, add_attempt = loop.corrective_options, WorkingCopy.add_attempt

    def spied_generate(self, prompt, options, *args, **kwargs):
        calls.add("generations", (prompt, options))
        return generate(self, prompt, options, *args, **kwargs)

    def spied_evaluate(self, *args, **kwargs):
        calls.add("evaluations", (self.options, self.planner.k, self.planner.time_limit_s))
        return evaluate(self, *args, **kwargs)

    def spied_plan(self, *args, **kwargs):
        calls.add("plans", (self.k, self.time_limit_s))
        return plan(self, *args, **kwargs)

    def spied_corrective(retries, feedback):     # Generate's rounds: the feedback its corrective rounds are told
        if retries:
            calls.add("feedback", feedback)
        return corrective_options(retries, feedback)

    def spied_add_attempt(self, name, *args, **kwargs):
        calls.add("attempts", (name, threading.current_thread().name))
        return add_attempt(self, name, *args, **kwargs)

    monkeypatch.setattr(LlamaCppBackend, "generate", spied_generate)
    monkeypatch.setattr(Evaluator, "evaluate", spied_evaluate)
    monkeypatch.setattr(KStarPlanner, "plan", spied_plan)
    monkeypatch.setattr(loop, "corrective_options", spied_corrective)
    monkeypatch.setattr(WorkingCopy, "add_attempt", spied_add_attempt)
    return calls
