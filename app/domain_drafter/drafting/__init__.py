"""The drafting layer: prompt -> generate -> evaluate, above `llm/` and `planning/` (no Qt).

One loop asks the model and judges its answers: the search (search.py). Every way of drafting is a preset of
its options (presets.py): one-shot, Generate's rounds (loop.py), best-of, Draft N (candidates.py), New
action's rounds (new_action.py), the (guided) search. Its records are in records.py.
"""
