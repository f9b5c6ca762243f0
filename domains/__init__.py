"""The nine bundled domains ship as package data of this package."""
