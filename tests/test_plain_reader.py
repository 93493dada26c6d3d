"""The plain reader and the full reader give the same audit of every document.

``logs/fast_reader.py`` reads a plainly written document from its bytes; whatever it cannot
read plainly it hands to the full reader (orjson, then ``parse.py``), a deal or the whole
document.  So the audit of any bytes must be the same whichever reader starts: the same
verdicts, errors and JSON pointers, the same JSON of every deal kept for a rejection.
``audit_document(plain=True)`` uses the plain reader for a document not yet parsed (the
default where it is compiled), the full reader for one that ``decode`` has parsed.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loo_replay.logs.fast_reader import read_plain
from loo_replay.logs.paths import expand
from loo_replay.logs.reader import Document, decode, read_documents
from loo_replay.output.json_document import session_json
from loo_replay.rulesets import RuleChoice, builtin, builtin_names
from loo_replay.run.audit import SessionReport, UnreadableDocument, audit_document
from loo_replay.simulate import Simulator
from tests.db_helpers import SAMPLES
from tests.test_compiled_build import _broken_documents
from tests.test_fuzz import BASES

CHOICE = RuleChoice()


def _audit(doc: Document) -> dict[str, Any]:
    item = audit_document(doc, CHOICE, plain=True)
    if isinstance(item, UnreadableDocument):
        return {"unreadable": (item.path, item.message)}
    assert isinstance(item, SessionReport)
    return {
        "session": session_json(item),
        "header": item.header,
        "raw_deals": list(item.raw_deals),
        "records": [None if d.result is None else d.result.record for d in item.deals],
    }


def _same_audit(raw: bytes) -> dict[str, Any]:
    """The audit of ``raw`` by both readers, after checking they agree."""
    doc = Document("log.jsonl", 7, raw)
    plain, full = _audit(doc), _audit(decode(doc))
    assert plain == full
    return plain


def _simulated(name: str, seed: int, violations: float, corrupt: float) -> dict[str, Any]:
    sim = Simulator(builtin(name).options, name, 5, seed, violations, corrupt)
    return sim.session(f"plain-{name}-{seed}", 12)


def test_the_sample_logs_audit_the_same_through_both_readers() -> None:
    for path in expand([SAMPLES]).files:
        for doc in read_documents(path, parse=False):
            _same_audit(doc.raw)


@pytest.mark.parametrize("name", builtin_names())
def test_simulated_sessions_with_violations_and_corruptions_audit_the_same(name: str) -> None:
    """Every ruleset's events (exchanges, flushes shown, the turn-up, Pam announced), with
    injected violations and corrupted records, compact and indented."""
    for seed in range(3):
        doc = _simulated(name, seed, 0.3, 0.2)
        _same_audit(orjson.dumps(doc))
        _same_audit(orjson.dumps(doc, option=orjson.OPT_INDENT_2))


def test_simulated_sessions_are_read_plainly_deal_by_deal() -> None:
    """What a logger writes plainly never goes the full way: the plain reader is the one
    that runs, and no deal of it is read again."""
    for name in builtin_names():
        raw = orjson.dumps(_simulated(name, 1, 0.3, 0.0))
        plain = read_plain(raw)
        assert plain is not None, name
        assert plain.parsed.raw_deals.values == {}  # type: ignore[attr-defined]
        assert len(plain.deals) == 12


def test_broken_documents_audit_the_same_through_both_readers() -> None:
    """The fuzz tests' bases with a hostile value at every seventh place, and documents
    that are not JSON or say a key twice."""
    for raw in _broken_documents():
        _same_audit(raw)


def _base() -> dict[str, Any]:
    return orjson.loads(orjson.dumps(BASES[0]))


def _edited(text: bytes, old: bytes, new: bytes) -> bytes:
    assert old in text, old
    return text.replace(old, new, 1)


EDITS = [
    # spellings the card table does not hold: read by parse_card, or rejected
    (b'"card":"', b'"card":"t'),
    (b'"card":"', b'"card":"10'),
    (b'"card":"', b'"card":"\\u0031'),
    (b'"card":"', b'"card":"\xe2\x99\xa5'),
    (b'"deal":1', b'"deal":1.0'),
    (b'"deal":1', b'"deal":1e0'),
    (b'"deal":1', b'"deal":01'),
    (b'"deal":1', b'"deal":-1'),
    (b'"deal":1', b'"deal":99999999999999999999'),
    (b'"deal":1', b'"deal":true'),
    (b'"deal":1,', b'"deal":1,"deal":2,'),
    (b'"deal":1,', b'"deal":1,"players":["ann","bob","cat"],'),
    (b'"deal":1,', b'"deal":1,"misdeal":false,'),
    (b'"deal":1,', b'"deal":1,"misdeal":1,'),
    (b'"deal":1,', b'"deal":1,"meta":{"note":"x"},'),
    (b'"deal":1,', b'"deal":1,"meta":[],'),
    (b'"deal":1,', b'"deal":1,"meta":{"a":1,"a":2},'),
    (b'"deal":1,', b'"deal":1,"extra":0,'),
    (b'{"type":"play",', b'{"meta":{},"type":"play",'),
    (b'{"type":"play",', b'{"type":"play","announce":"pam_be_civil",'),
    (b'{"type":"play",', b'{"type":"play","announce":null,'),
    (b'{"type":"play",', b'{"type":"play","type":"play",'),
    (b'{"type":"play",', b'{"type":"declare",'),
    (b'"type":"play",', b'"type":"play" ,\n\t'),
    (b'"events":[', b'"events":[{"type":"turn_up","card":"AS"},'),
    (b'"events":[', b'"events":[{"type":"show_flush","player":"ann"},'),
    (b'"events":[', b'"events":[{"type":"show_flush"},'),
    (b'"events":[', b'"events":[{"type":"exchange","player":"ann","discard":[],"draw":[]},'),
    (b'"events":[', b'"events":[{"type":"exchange","player":"ann","discard":["AS"]},'),
    (b'"recorded":{', b'"recorded":{"stacks":{"ann":-5},'),
    (b'"recorded":{', b'"recorded":{"tricks":{"ann":-5},'),
    (b'"recorded":{', b'"recorded":{"tricks":{"zed":1},'),
    (b'"recorded":{', b'"recorded":{"tricks":{"ann":1,"ann":2},'),
    (b'"recorded":{', b'"recorded":{"pool_start":3.5,'),
    (b'"hands":{', b'"hands":{"zed":[],'),
    (b'"dealer":', b'"dealer":"zed","x":'),
    (b'"player":"', b'"player":"zed","p":"'),
    (b'"session":', b'"meta":{"a":1},"session":'),
    (b'"session":', b'"deals":[],"session":'),
    (b'"format":"loo-hand-log"', b'"format":"loo-hand-log2"'),
    (b'"ruleset":"', b'"ruleset":"no-such-'),
    (b"]}", b"]}x"),
    (b"]}", b"],}"),
    (b"]}", b'],"meta":{}}'),
    (b"]}", b"] } \n"),
]


@pytest.mark.parametrize(("old", "new"), EDITS)
def test_unusual_documents_audit_the_same_through_both_readers(old: bytes, new: bytes) -> None:
    """Edits at the first place they fit: odd spellings and numbers, keys said twice, fields
    in other orders, events of every kind, what follows the document."""
    _same_audit(_edited(orjson.dumps(_base()), old, new))


def test_a_players_list_after_the_seats_it_names_is_read_the_full_way() -> None:
    doc = _base()
    deal = doc["deals"][0]
    doc["deals"][0] = {
        **deal,
        "players": list(doc["session"]["players"][i]["id"] for i in (2, 0, 1)),
    }
    raw = orjson.dumps(doc)
    plain = read_plain(raw)
    assert plain is not None and 0 in plain.parsed.raw_deals.values  # type: ignore[attr-defined]
    _same_audit(raw)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_byte_changed_audits_the_same_through_both_readers(data: st.DataObject) -> None:
    """A byte of a plain document replaced, inserted or deleted: whatever the reader makes
    of the result, both readers make the same."""
    raw = bytearray(orjson.dumps(BASES[data.draw(st.integers(0, len(BASES) - 1))]))
    at = data.draw(st.integers(0, len(raw) - 1))
    byte = data.draw(st.sampled_from(b' ,:{}[]"\\0123456789-.eEtfnulAS\xe2\x00\n'))
    change = data.draw(st.sampled_from(("replace", "insert", "delete")))
    if change == "replace":
        raw[at] = byte
    elif change == "insert":
        raw.insert(at, byte)
    else:
        del raw[at]
    _same_audit(bytes(raw))
