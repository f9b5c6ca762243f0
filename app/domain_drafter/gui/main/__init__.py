"""The main window and its parts: the window, toolbar, draft controller, Draft N candidates, model
status, the verdict's tests (Keep as test, Must never happen…), files (prompt, domain folder, model file,
drops), settings and help menus, closing (which asks before a running benchmark is stopped), geometry and
what the window remembers.

The top layer of gui/: it may import every other gui sub-package; none of them imports it.
"""
