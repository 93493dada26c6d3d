"""The hand-written reader and schemas/hand-log.schema.json agree (docs/log-format.md).

Every schema fixture and every sample log goes through both the ``jsonschema``
package and the reader: a document the schema accepts is read without a log
error of structure, and a document it rejects is rejected by the reader at
the same JSON pointer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from loo_replay.engine.session import SessionReplay
from loo_replay.logs.parse import Bad, parse_deal, parse_document
from loo_replay.logs.paths import expand
from loo_replay.logs.reader import read_documents
from loo_replay.rulesets import builtin

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "schema"
SCHEMA = json.loads((ROOT / "schemas" / "hand-log.schema.json").read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
EXPECTED = json.loads((FIXTURES / "invalid" / "EXPECTED.json").read_text("utf-8"))


def reader_errors(doc: Any) -> list[str]:
    """JSON pointers of every structural error the reader finds in ``doc``."""
    try:
        parsed = parse_document(doc)
    except Bad as bad:
        return [bad.path]
    if parsed.header_error is not None:
        return [parsed.header_error.path]
    assert parsed.header is not None
    chain = SessionReplay(parsed.header.players, builtin("three-card").options, None)
    errors: list[str] = []
    for i, raw in enumerate(parsed.raw_deals):
        deal = parse_deal(raw, f"/deals/{i}", parsed.header)
        errors += [e.path for e in deal.errors]
        chain.audit(deal)
    return errors


def schema_errors(doc: Any) -> list[str]:
    return ["/" + "/".join(str(p) for p in e.absolute_path) for e in VALIDATOR.iter_errors(doc)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_log_format_invalid_fixture_rejected_at_the_same_pointer(name: str) -> None:
    doc = json.loads((FIXTURES / "invalid" / name).read_text("utf-8"))
    expected = EXPECTED[name]
    schema = [p if p != "/" else "" for p in schema_errors(doc)]
    assert expected in schema
    assert expected in reader_errors(doc), f"reader: {reader_errors(doc)}, schema: {schema}"


@pytest.mark.parametrize("path", sorted((FIXTURES / "valid").glob("*.json")), ids=lambda p: p.name)
def test_log_format_valid_fixture_read_without_errors(path: Path) -> None:
    doc = json.loads(path.read_text("utf-8"))
    assert schema_errors(doc) == []
    assert reader_errors(doc) == []


def sample_documents() -> list[tuple[str, Any]]:
    docs = []
    for path in expand([ROOT / "sample_logs"]).files:
        for doc in read_documents(path):
            assert doc.error is None, f"{doc.file}:{doc.line}: {doc.error}"
            docs.append((f"{path.name}:{doc.line or 1}", doc.value))
    return docs


@pytest.mark.parametrize(("where", "doc"), sample_documents() or [("none", None)])
def test_log_format_every_sample_log_validates_against_the_schema(where: str, doc: Any) -> None:
    """docs/log-format.md: every file in sample_logs/ validates; its broken deals are broken in
    ways only the reader can see (a card not held, a card in two places)."""
    if doc is None:
        pytest.skip("sample_logs/ holds no documents yet")
    assert schema_errors(doc) == [], where
