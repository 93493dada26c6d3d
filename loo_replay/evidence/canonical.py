"""JSON in its canonical form (RFC 8785, JCS), the bytes every seal is taken over.

The ``rfc8785`` library is the reference.  The seals of a long log are checked by
``validate`` and ``ingest`` on the way, so the common case takes a faster road: orjson
with its keys sorted writes exactly the JCS bytes of a value holding no fraction, no
integer of sixteen digits or more, and no key outside the Basic Multilingual Plane
(orjson sorts keys by their UTF-8 bytes, JCS by their UTF-16 units: the two orders part
only there).  A look at orjson's output for any of those sends the value to the library
instead; a false alarm (``7e`` or a long number inside a string) costs time, never a wrong
byte.  ``tests/test_evidence_canonical.py`` checks the two against each other, Hypothesis
over random JSON among them.
"""

from __future__ import annotations

from typing import Any

import orjson

from loo_replay.errors import InputError

# What sends a value to the library, looked for in orjson's output: a fraction or exponent
# (orjson writes every float with one of ``.eE`` after a digit), an integer that may lie
# beyond 2**53 - 1 (sixteen digits), or the lead byte of a character beyond U+FFFF.  Every
# digit is folded to ``0`` first, so that each is one search in C (a regular expression
# tried at every byte cost ten times the rest of the canonical form).
_FOLD = bytes.maketrans(b"123456789", b"000000000")
_MARKS = (b"0.", b"0e", b"0E", b"0" * 16)
_BELOW_F0 = bytes(range(0xF0))


def _fast_is_jcs(fast: bytes) -> bool:
    """Whether orjson's sorted output ``fast`` is sure to be the JCS bytes (module
    docstring)."""
    folded = fast.translate(_FOLD)
    if any(mark in folded for mark in _MARKS):
        return False
    return fast.isascii() or not fast.translate(None, _BELOW_F0)


class CanonicalError(InputError, ValueError):
    """A value RFC 8785 cannot write: a number beyond I-JSON's range, a lone surrogate."""


def reference(value: Any) -> bytes:
    """``value``'s JCS bytes as the ``rfc8785`` library writes them (imported only here:
    most logs never need it, and every command that reads a log imports this module)."""
    import rfc8785

    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, UnicodeError, TypeError, ValueError) as exc:
        raise CanonicalError(f"not canonical JSON under RFC 8785: {exc}") from None


def canonical(value: Any) -> bytes:
    """``value``'s JCS bytes: orjson's sorted output where that is sure to be them, else the
    library's (module docstring)."""
    try:
        fast = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return reference(value)
    if _fast_is_jcs(fast):
        return fast
    return reference(value)
