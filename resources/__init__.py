"""Prompt templates, icons and styles ship as package data of this package."""
