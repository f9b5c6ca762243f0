"""The PDDL editor: the code editor widget, its highlighter and Pygments lexer, the find bar.

Above state/ and look/ (which it may import); never imports panels/, dialogs/, authoring/ or main/.
"""
