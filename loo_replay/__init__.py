"""loo-replay: audit, settle, load and replay recorded games of Loo (Lanterloo)."""

__version__ = "0.2.0"
