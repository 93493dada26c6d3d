"""The bundle's in-toto Statement v1: what was audited (the logs, by digest) and what the
audit found, for a machine to read.

The layout is in-toto's Statement v1 (in-toto/attestation, spec/v1/statement.md):
``_type``, ``subject`` (each a name and its ``sha256``), ``predicateType`` (a URI of this
project, below) and ``predicate`` (docs/evidence.md, "The statement").  It is written as
sorted, indented JSON, so that the same audit gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://loo-replay.invalid/evidence/audit/v1"


def statement(subjects: Mapping[str, str], predicate: Mapping[str, Any]) -> bytes:
    """The statement's bytes: ``subjects`` maps each log's name in the bag to its sha256."""
    document = {
        "_type": STATEMENT_TYPE,
        "subject": [
            {"name": name, "digest": {"sha256": digest}} for name, digest in subjects.items()
        ],
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def read_statement(data: bytes) -> tuple[dict[str, str], dict[str, Any]]:
    """The subjects (name → sha256) and predicate of a statement; ``ValueError`` says what
    is not as this module writes it."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise ValueError("statement.json is not JSON") from None
    if not isinstance(document, dict) or document.get("_type") != STATEMENT_TYPE:
        raise ValueError(f"statement.json is not an in-toto Statement ({STATEMENT_TYPE})")
    if document.get("predicateType") != PREDICATE_TYPE:
        raise ValueError(f"statement.json's predicateType is not {PREDICATE_TYPE}")
    subjects: dict[str, str] = {}
    for entry in document.get("subject") or []:
        try:
            subjects[str(entry["name"])] = str(entry["digest"]["sha256"])
        except (KeyError, TypeError):
            raise ValueError("a subject of statement.json has no name or sha256") from None
    predicate = document.get("predicate")
    if not isinstance(predicate, dict):
        raise ValueError("statement.json has no predicate")
    return subjects, predicate
