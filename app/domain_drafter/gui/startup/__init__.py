"""What runs before (or instead of) the main window: the platform check (Qt's system libraries),
the binding check (a PySide6 that corrupts None's reference count), and the self-test's GUI stage.

platform_check and binding_check import nothing of gui/ (they run before Qt can start);
gui_self_test starts the app and draws the main window.
"""
