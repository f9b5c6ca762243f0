"""The app's dialogs: Settings, Get a model, Help (About, Result classes), Show prompt, Benchmark.

May import panels/, editor/, state/ and look/; never authoring/ or main/ (a dialog is handed what it
needs, not the window that opens it).
"""
