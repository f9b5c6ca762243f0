"""The main window's panels and what they show: domain, description, answer, result, distinguishing
state and candidates panels, the Qt item models over plain data, and result_display (badges, ARE
lines and plan rows as plain data).

May import editor/, state/ and look/; never dialogs/, authoring/ or main/.
"""
