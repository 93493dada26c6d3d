"""Renderings of audits: the JSON contract of LOG-FORMAT.md and the text report."""
