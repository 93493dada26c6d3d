"""The corpus of hand-made nasty logs in tests/fixtures/nasty (issue: bad input).

Each file goes through the real CLI: a clear message, the right exit status
(1 for log errors, 2 for a file or a document that cannot be read or parsed:
docs/log-format.md, exit status), never a traceback, and
the terminal never receives a raw control or bidi character from a log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

NASTY = Path(__file__).resolve().parent / "fixtures" / "nasty"
EXPECTED = {
    "bom.json": (2, "Unexpected UTF-8 BOM"),
    "deep-nesting.json": (2, "nested too deeply"),
    "duplicate-keys.json": (2, "duplicate key 'deal'"),
    "empty.json": (2, "not valid JSON"),
    "hostile-strings.json": (0, "\\u202e"),
    "huge-number.json": (1, "expected an integer from 1 to 9007199254740991"),
    "impossible-decks.json": (1, "a card in two places"),
    "invalid-utf8.jsonl": (2, "not UTF-8 (byte 200"),
    "lone-surrogate.json": (2, "a lone surrogate (\\ud800)"),
    "nan.json": (2, "NaN is not a JSON number"),
    "not-gzip.json.gz": (2, "Not a gzipped file"),
    "truncated.json": (2, "not valid JSON"),
    "truncated.jsonl.gz": (2, "cannot read"),
    "unknown-fields.json": (1, "unknown field 'turnup' in a deal"),
    "wrong-types.json": (1, "expected the hands (a JSON object)"),
}


def validate(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "loo_replay", "validate", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_corpus_is_complete() -> None:
    assert sorted(p.name for p in NASTY.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_nasty_log_gives_a_clear_message_and_exit_status(name: str) -> None:
    status, words = EXPECTED[name]
    result = validate(NASTY / name)
    assert "Traceback" not in result.stdout + result.stderr
    assert result.returncode == status, result.stdout
    assert words in result.stdout
    for bad in ("\x1b", "\u202e", "\u200f", "\x07", "\x00"):
        assert bad not in result.stdout


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_nasty_log_json_accounts_for_every_deal(name: str) -> None:
    result = validate(NASTY / name, "--format", "json")
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    s = doc["summary"]
    deals = [d for session in doc["sessions"] for d in session["deals"]]
    assert len(deals) == s["deals"] == s["audited"] + s["misdeals"] + s["rejected"]
    assert all(d["errors"] for d in deals if d["status"] == "rejected")
