"""The batch benchmark: experiment specs (spec.py; strategies and the [search] table), the runner and its
results file (runner.py, store.py), who writes the answers (generators.py: generator processes, endpoint
slots, Dask jobs; dispatch.py hands them one task at a time; drafter.py writes one task's answer on any of
them), strategies at equal cost (strategies.py, strategy_table.py), Table 1, figures and the HTML report,
import, export, rejudge (no Qt). May import drafting/, planning/, llm/, core/.
"""
