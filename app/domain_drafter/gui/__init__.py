"""The desktop app: the only package that imports PySide6.

app.py is the entry point (`domain-drafter-gui`). The rest lives in sub-packages by role, layered from
the bottom up: state/ and look/, then editor/, panels/, then dialogs/ and authoring/, then main/ on
top; startup/ holds the checks that run before Qt starts and the self-test's GUI stage.
"""
