"""Any bytes at all, as a ``.json``, ``.jsonl`` or gzip file, read and audited within small
limits: every document is a session or a rejected document with a message, and a file
that breaks off is a ``ReadError``; never another exception, never a document held past
its limit.  The plain reader and the full one agree under the limits as without them
(docs/limits.md, "Limits on what is read")."""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from db_helpers import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loo_replay.logs.limits import OPTIONS, Limits
from loo_replay.logs.reader import ReadError, read_documents
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, UnreadableDocument, audit_document

# Low enough that the examples below cross every one of them.
SMALL = Limits(
    document_bytes=6000,
    gzip_ratio=8,
    depth=6,
    string_length=40,
    number_length=12,
    deal_events=12,
)
SESSION = (SAMPLES / "wrong-payouts.json").read_bytes()
NAMES = ("log.json", "log.jsonl", "log.json.gz", "log.jsonl.gz")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=60),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=30,
)


@st.composite
def edited_sessions(draw: st.DrawFn) -> bytes:
    """A real session document with a few of its bytes replaced, cut or repeated, or with
    a value swapped for another (a long string, a deep list, a huge number)."""
    doc: dict[str, Any] = json.loads(SESSION)
    doc["deals"] = doc["deals"][: draw(st.integers(1, 6))]  # up to 9 KB: past the limit
    if draw(st.booleans()):
        deal = doc["deals"][0]
        deal["events"] = deal.get("events", []) * draw(st.integers(1, 3))
    nested: Any = draw(json_values)
    for _ in range(draw(st.integers(0, 8))):
        nested = [nested]
    where = draw(st.sampled_from([doc["session"], doc["deals"][0], doc]))
    where["meta"] = {draw(st.sampled_from(["k", "k" * 50])): nested}
    raw = json.dumps(doc, separators=(",", ":")).encode()
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(raw)))
        cut = draw(st.integers(0, 8))
        put = draw(
            st.sampled_from(
                [b"", b"1e400", b"9" * 30, b'"' + b"x" * 50 + b'"', b"[" * 9, b"\\u00e9"]
            )
            | st.binary(max_size=6)
        )
        raw = raw[:at] + put + raw[at + cut :]
    return raw


inputs = (
    st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()) | edited_sessions()
)


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="loo-properties-") as tmp:
        yield Path(tmp)


def results(path: Path, plain: bool) -> list[tuple[str, Any]]:
    """What each document of ``path`` audits to: the message of a rejected document, or
    each deal's status and errors."""
    out: list[tuple[str, Any]] = []
    for doc in read_documents(path, parse=False, limits=SMALL):
        assert len(doc.raw) <= SMALL.document_bytes
        item = audit_document(doc, RuleChoice(), plain=plain, keep=False, limits=SMALL)
        if isinstance(item, UnreadableDocument):
            assert item.message
            if "limit of" in item.message:  # a limit says which option raises it
                assert any(option in item.message for option in OPTIONS.values())
            out.append(("rejected", item.message))
        else:
            assert isinstance(item, SessionReport)
            out.append(("session", [(d.status, d.errors) for d in item.deals]))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    documents=st.lists(inputs, min_size=1, max_size=3),
    name=st.sampled_from(NAMES),
    packed=st.booleans(),
)
def test_any_bytes_read_are_documents_or_a_clear_reject(
    folder: Path, documents: list[bytes], name: str, packed: bool
) -> None:
    """A ``.gz`` file is gzip or, not ``packed``, the bytes as they are (a ``ReadError``
    when they are not gzip); a ``.json`` file holds the first document, a ``.jsonl`` file a
    line each."""
    data = documents[0] if ".json." in name or name.endswith(".json") else b"\n".join(documents)
    path = folder / name
    path.write_bytes(gzip.compress(data) if packed and name.endswith(".gz") else data)
    try:
        full = results(path, plain=False)
    except ReadError as exc:
        assert str(exc).startswith(str(path))
        return
    assert results(path, plain=True) == full
