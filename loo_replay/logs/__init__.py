"""Reading hand logs: files to documents (``reader``), documents to engine input (``parse``)."""

from __future__ import annotations

from loo_replay import package_file


def log_schema() -> bytes:
    """The JSON Schema of the hand-log format (docs/log-format.md), as installed with the
    package, for users to check their own logs with any JSON Schema tool."""
    return package_file("schemas", "hand-log.schema.json").read_bytes()
