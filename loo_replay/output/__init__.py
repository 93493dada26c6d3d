"""Renderings of audits: the JSON contract of docs/log-format.md and the text report."""
