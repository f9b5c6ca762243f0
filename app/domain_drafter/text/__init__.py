"""Text: how the engine's results read, shared by the command line and the desktop app (no Qt, no argparse).

verdicts.py: checks, ARE, evaluations and whole-domain comparisons; proof.py: the proof's headline and
the distinguishing state laid out for reading; domain_tests.py: domain-test results and quick fixes.
Plain functions over result objects: they write no file and explore no state. Imports core/ and
planning/ only; drafting/ (feedback in words) and the front ends import it.
"""
