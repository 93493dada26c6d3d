"""Every nasty log of tests/fixtures/nasty through ``ingest`` (issue: bad input).

No traceback; exit 2 for a file or a document that cannot be read or parsed
(docs/log-format.md, exit status), 0 otherwise; every deal of a
session document lands in ``deals`` or ``rejects``; a document that is not a
session lands in ``rejects`` verbatim, with its file, line and message.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from db_helpers import counts, run, sql

NASTY = Path(__file__).resolve().parent / "fixtures" / "nasty"
UNREADABLE_FILES = {"not-gzip.json.gz", "truncated.jsonl.gz"}


@pytest.mark.parametrize("name", sorted(p.name for p in NASTY.iterdir()))
def test_ingest_of_a_nasty_log_keeps_every_deal_and_explains(name: str, tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    result = run("ingest", NASTY / name, "--db", db)
    c = counts(result)
    deals = sql(db, "SELECT count(*) FROM deals")[0][0]
    rejected = sql(db, "SELECT count(*) FROM rejects WHERE kind = 'deal'")[0][0]
    assert deals + rejected == c["deals"] == c["loaded"] + c["rejected"]
    documents = sql(db, "SELECT file, message, raw FROM rejects WHERE kind <> 'deal'")
    for file, message, raw in documents:
        assert file.endswith(name) and message and raw is not None
    unreadable = name in UNREADABLE_FILES or bool(documents)
    assert result.returncode == (2 if unreadable else 0), result.stderr
    if name not in UNREADABLE_FILES and c["deals"] == 0:
        assert documents, "a document that is not a session is kept in rejects"


def test_rejected_deals_are_kept_verbatim(tmp_path: Path) -> None:
    db = tmp_path / "loo.duckdb"
    run("ingest", NASTY / "wrong-types.json", "--db", db)
    original = json.loads((NASTY / "wrong-types.json").read_text("utf-8"))["deals"]
    for index, raw, path in sql(db, "SELECT deal_index, raw, path FROM rejects ORDER BY 1"):
        assert json.loads(bytes(raw)) == original[index]
        assert path.startswith(f"/deals/{index}")
