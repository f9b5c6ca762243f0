"""The authoring window: draft a whole domain, accept and revert actions, keep their history, save.

Its window, table models, jobs (plain functions), runs, autosave, descriptions editor, dialogs,
candidates tab and the main window's Authoring menu. May import panels/, editor/, state/ and look/;
never dialogs/ or main/.
"""
