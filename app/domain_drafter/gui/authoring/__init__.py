"""The authoring window: draft a whole domain, accept and revert actions, keep their history, save.

Its window, table models, jobs (plain functions), runs, autosave, descriptions editor, dialogs,
candidates tab, Tests tab and the main window's Authoring menu; and the new-case writer and Keep as
test / Must never happen… that the main window's verdict uses too (case_writer.py,
counterexample_tests.py). May import panels/, editor/, state/ and look/; never dialogs/ or main/.
"""
