"""The reader's two parsers agree (docs/log-format.md: a key said twice is a log error).

``decode`` parses with orjson and proves by a scan of the bytes that no key was said
twice, else reads the document again with Python's parser, which names the key.
Property: whatever the bytes, ``decode`` gives what Python's parser with duplicate keys
refused gives, the same value or the same error.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from loo_replay.logs.reader import Document, _constant, _object, decode

KEYS = st.sampled_from(["a", "deal", "b:c", ":", "é", "x\u0000", "10:30", ""]) | st.text(max_size=4)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**70)  # beyond orjson's 64 bits
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.sampled_from('a:é"\\/\n\u2028\ud7ff:0'), max_size=6)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(st.tuples(KEYS, inner), max_size=4)  # key-value pairs, maybe repeated
    ),
    max_leaves=20,
)


def _dumps(value: Any, ascii_only: bool) -> str:
    """JSON of ``value``, a list of pairs written as an object with every pair kept."""
    if isinstance(value, list) and value and all(isinstance(v, tuple) for v in value):
        pairs = (
            f"{json.dumps(k, ensure_ascii=ascii_only)}:{_dumps(v, ascii_only)}" for k, v in value
        )
        return "{" + ",".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dumps(v, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def _python_value(raw: bytes) -> tuple[Any, str | None]:
    """What Python's parser with duplicate keys refused makes of ``raw``: value or error."""
    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=_object, parse_constant=_constant)
    except (ValueError, RecursionError) as exc:
        return None, type(exc).__name__
    return value, None


@settings(max_examples=400, deadline=None)
@given(VALUES, st.booleans())
def test_decode_reads_what_pythons_parser_reads_and_refuses_what_it_refuses(
    value: Any, ascii_only: bool
) -> None:
    raw = _dumps(value, ascii_only).encode("utf-8", "surrogatepass")
    doc = decode(Document("x.jsonl", 1, raw))
    expected, error = _python_value(raw)
    if error is None:
        assert doc.error is None
        assert json.dumps(doc.value) == json.dumps(expected)  # types too: 1 is not 1.0
    else:
        assert doc.error is not None and doc.value is None


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60) | st.sampled_from([b'{"a":1,"a":2}', b'{"a:":{"b":1,"b":2}}']))
def test_decode_of_any_bytes_is_the_value_or_the_error_of_pythons_parser(raw: bytes) -> None:
    doc = decode(Document("x.jsonl", 1, raw))
    expected, error = _python_value(raw)
    if error is None:
        assert doc.error is None and json.dumps(doc.value) == json.dumps(expected)
    else:
        assert doc.error is not None


def test_a_key_said_twice_is_named_whichever_parser_reads_first() -> None:
    """docs/log-format.md: a record must not say two things; colons inside strings do not hide it."""
    for raw in (b'{"a":1,"a":2}', b'{"t":"10:30","t":"10:31"}', b'[{"k":":"},{"k":1,"k":2}]'):
        doc = decode(Document("x.jsonl", 1, raw))
        assert doc.value is None and doc.error is not None
        assert "duplicate key" in doc.error


def test_a_key_said_twice_is_found_past_the_keys_and_depth_the_scan_holds() -> None:
    """Objects wider than the scan's 512 keys or deeper than its 64 levels go to Python's
    parser: still the same value, still the same refusal."""
    wide = "{" + ",".join(f'"k{i}":{i}' for i in range(600)) + "}"
    deep = '{"a":' * 70 + "1" + "}" * 70
    for text in (wide, deep):
        doc = decode(Document("x.jsonl", 1, text.encode()))
        assert doc.error is None and doc.value == json.loads(text)
    for text in (wide[:-1] + ',"k3":0}', '{"a":' * 70 + '{"b":1,"b":2}' + "}" * 70):
        doc = decode(Document("x.jsonl", 1, text.encode()))
        assert doc.value is None and doc.error is not None and "duplicate key" in doc.error
