"""The drafting layer: prompt -> generate -> evaluate, above `llm/` and `planning/` (no Qt)."""
