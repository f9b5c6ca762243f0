"""How the app looks: the light and dark colour schemes (plain data) and the Qt theme built from them.

A bottom layer of gui/ beside state/: it may import the engine, Qt and the standard library, never
another gui sub-package.
"""
