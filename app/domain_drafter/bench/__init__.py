"""The batch benchmark: experiment specs (spec.py; strategies and the [search] table), the runner and its
results file (runner.py, store.py), strategies at equal cost (strategies.py, strategy_table.py), Table 1,
figures and the HTML report, import, export, rejudge (no Qt). May import drafting/, planning/, llm/, core/.
"""
