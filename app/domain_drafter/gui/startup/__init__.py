"""What runs before (or instead of) the main window: the platform check (Qt's system libraries),
the binding check (a PySide6 that corrupts None's reference count), the app's names and icon
(application.py), and the self-test's GUI stage.

platform_check, binding_check and application import nothing of gui/ (they run before Qt can start);
gui_self_test starts the app and draws the main window, so startup/ sits above main/ and below app.py.
"""
