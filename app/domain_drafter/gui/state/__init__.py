"""The desktop app's plumbing: the app state, settings, workers and their jobs, errors, enabling.

`AppState` (what is loaded, selected, set and running), `AppSettings` (saved as JSON), the thread-pool
workers and the plain engine functions they run, the one place an exception becomes a message, the
enabling tables, and the folder each kind of file dialog opens in (folders.py). The bottom layer of
gui/: it may import the engine, Qt and the standard library, never another gui sub-package.
"""
